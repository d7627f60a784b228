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
  std::vector<double> err;  // optional: half-widths of error bars (yerrorlines; style "points":
                            // unconnected yerrorbars)
};

// A map over a rectangular grid (x[i], y[j]): one value per cell, drawn as a coloured rectangle
// under the series of the plot. The grid need not be uniform: cell i spans from the midpoint
// with its left neighbour to the midpoint with its right one (geometric midpoints on a log
// axis), the end cells symmetric about their centre. Two kinds of colouring:
//   continuous:   z is a number on a sequential palette (a log colour scale when log_z);
//   categorical:  z ∈ {0, 1, …, k − 1} indexes `classes` (k names), one colour per class.
// A NaN z leaves its cell blank (e.g. no stationary law there). Boundaries or contour lines go
// in PlotSpec::series, drawn on top.
struct Heatmap {
  std::vector<double> x, y;          // cell centres, increasing
  std::vector<double> z;             // z[j * x.size() + i] is the value at (x[i], y[j])
  std::string zlabel;                // colour-bar label
  bool log_z = false;                // continuous: colour by log10 z
  std::vector<std::string> classes;  // categorical: class names, in z order; empty: continuous
  bool empty() const { return z.empty(); }
};

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  bool equal_axes = false;  // same scale on both axes (scatter plots with ellipses)
  std::vector<Series> series;
  Heatmap heatmap{};  // drawn first, under the series, when not empty
};

}  // namespace fedverify::claims
