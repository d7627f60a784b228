#include "verify/claims/kit/remainder_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimators/statistics/regression.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::kit {

Row remainder_order_row(const std::string& setting, const std::vector<double>& gamma,
                        const std::vector<double>& remainder, double round_off,
                        double required_order) {
  Row row;
  row.setting = setting;
  double largest = 0;
  for (double r : remainder) largest = std::max(largest, r);
  row.data = {{"gamma", gamma}, {"remainder", remainder}, {"round_off", round_off}};
  if (largest <= round_off) {
    row.predicted = "0 (exact)";
    row.measured = fmt::format("max {:.2e} ≤ round-off {:.1e}", largest, round_off);
    row.passed = true;
    row.data["zero"] = true;
    gate(row, "max_remainder", largest, round_off);
    return row;
  }
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < gamma.size(); ++i) {
    lx.push_back(std::log(gamma[i]));
    ly.push_back(std::log(remainder[i]));
  }
  const auto fit = estimators::fit_slope(lx, ly, kSlopeAlpha);
  row.predicted = fmt::format("order 2 (> {} required)", required_order);
  row.measured = fmt::format("{:.3f} [{:.3f}, {:.3f}]", fit.slope, fit.lower, fit.upper);
  row.passed = fit.lower > required_order;
  row.data["slope"] = fit.slope;
  row.data["slope_lower"] = fit.lower;
  row.data["slope_upper"] = fit.upper;
  // Baseline comparison (report --baseline): the slope may move within its interval.
  const double tolerance = std::max(0.5 * (fit.upper - fit.lower), 1e-3);
  row.data["value"] = fit.slope;
  row.data["tolerance"] = tolerance;
  gate(row, "slope", fit.slope, tolerance);
  return row;
}

// Round-off zeros cannot be drawn on a log axis: keeps the positive points of each series.
void drop_zeros(PlotSpec& figure) {
  for (auto& s : figure.series) {
    std::vector<double> x, y;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (s.y[i] > 0) {
        x.push_back(s.x[i]);
        y.push_back(s.y[i]);
      }
    }
    s.x = x;
    s.y = y;
  }
}

}  // namespace fedverify::claims::kit
