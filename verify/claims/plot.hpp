// Plot data a claim returns with its result: what to draw, not how (reports/report/figures.hpp
// draws it with gnuplot). Keeps claims free of any drawing code and of the report layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fedverify::claims {

struct Series {
  Series() = default;
  Series(std::string title_, std::vector<double> x_, std::vector<double> y_,
         std::string style_ = "linespoints", std::vector<double> err_ = {})
      : title(std::move(title_)),
        x(std::move(x_)),
        y(std::move(y_)),
        style(std::move(style_)),
        err(std::move(err_)) {}

  std::string title;
  std::vector<double> x, y;
  std::string style = "linespoints";  // gnuplot "with" clause: lines, points, linespoints, dots
  std::vector<double> err;  // optional: half-widths of error bars (then drawn with yerrorlines)
};

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  bool equal_axes = false;  // same scale on both axes (scatter plots with ellipses)
  std::vector<Series> series;
};

}  // namespace fedverify::claims
