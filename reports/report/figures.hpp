// SVG figures drawn with gnuplot (Debian gnuplot-nox). When gnuplot is missing or fails,
// draw_svg() returns false, leaves no SVG behind, and the report says the figure was skipped.
#pragma once

#include <filesystem>
#include <string>

#include "verify/claims/plot.hpp"

namespace fedverify::reports {

using claims::PlotSpec;
using claims::Series;

bool gnuplot_available();

// A private directory for gnuplot's data and script files (under the system's temporary
// directory, never inside an output directory), removed with everything in it on destruction.
class ScratchDirectory {
 public:
  ScratchDirectory();  // throws InputError when it cannot be created
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Writes `svg_path` with gnuplot, its data and script in `scratch`. Returns true only when
// gnuplot succeeded and the SVG is complete (it ends with </svg>); otherwise returns false and
// removes whatever part of the SVG was written.
bool draw_svg(const PlotSpec& plot, const std::filesystem::path& svg_path,
              const ScratchDirectory& scratch);

}  // namespace fedverify::reports
