// SVG figures drawn with gnuplot (Debian gnuplot-nox). When gnuplot is missing, draw_svg()
// returns false and the report says the figure was skipped.
#pragma once

#include <string>
#include <vector>

namespace fedverify::reports {

struct Series {
  std::string title;
  std::vector<double> x, y;
  std::string style = "linespoints";  // gnuplot "with" clause: lines, points, linespoints, dots
};

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  bool equal_axes = false;  // same scale on both axes (scatter plots with ellipses)
  std::vector<Series> series;
};

bool gnuplot_available();

// Writes `svg_path`; returns false (and writes nothing) when gnuplot is unavailable or fails.
bool draw_svg(const PlotSpec& plot, const std::string& svg_path);

}  // namespace fedverify::reports
