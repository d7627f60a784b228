// SVG figures drawn with gnuplot (Debian gnuplot-nox). When gnuplot is missing, draw_svg()
// returns false and the report says the figure was skipped.
#pragma once

#include <string>

#include "verify/claims/plot.hpp"

namespace fedverify::reports {

using claims::PlotSpec;
using claims::Series;

bool gnuplot_available();

// Writes `svg_path`; returns false (and writes nothing) when gnuplot is unavailable or fails.
bool draw_svg(const PlotSpec& plot, const std::string& svg_path);

}  // namespace fedverify::reports
