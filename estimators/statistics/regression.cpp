#include "estimators/statistics/regression.hpp"

#include <fmt/format.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

SlopeEstimate fit_slope(const std::vector<double>& x, const std::vector<double>& y, double alpha) {
  if (x.size() != y.size()) {
    throw InputError(fmt::format("fit_slope: x has {} points but y has {}", x.size(), y.size()));
  }
  if (x.size() < 3) {
    throw InputError(fmt::format("fit_slope: x: need at least 3 points, got {}", x.size()));
  }
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw InputError(fmt::format("fit_slope: alpha: must be in (0, 1), got {}", alpha));
  }
  const auto n = static_cast<double>(x.size());
  double xbar = 0, ybar = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      throw InputError(fmt::format("fit_slope: x/y: non-finite value at index {}", i));
    }
    xbar += x[i] / n;
    ybar += y[i] / n;
  }
  // Centred sums (two-pass) avoid the cancellation of Σx² − n x̄².
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - xbar) * (x[i] - xbar);
    sxy += (x[i] - xbar) * (y[i] - ybar);
  }
  if (!(sxx > 0.0)) throw InputError("fit_slope: x: all values are equal; the slope is undefined");

  SlopeEstimate e;
  e.n = static_cast<int>(x.size());
  e.alpha = alpha;
  e.slope = sxy / sxx;
  e.intercept = ybar - e.slope * xbar;
  double ssr = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (e.intercept + e.slope * x[i]);
    ssr += r * r;
  }
  e.std_error = std::sqrt(ssr / (n - 2.0) / sxx);
  const boost::math::students_t t(n - 2.0);
  const double q = boost::math::quantile(t, 1.0 - alpha / 2.0);
  e.lower = e.slope - q * e.std_error;
  e.upper = e.slope + q * e.std_error;
  return e;
}

SlopeEstimate fit_log_log_slope(const std::vector<double>& x, const std::vector<double>& y,
                                double alpha) {
  if (x.size() != y.size()) {
    throw InputError(
        fmt::format("fit_log_log_slope: x has {} points but y has {}", x.size(), y.size()));
  }
  std::vector<double> lx(x.size()), ly(y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0.0) || !(y[i] > 0.0)) {
      throw InputError(
          fmt::format("fit_log_log_slope: x/y: values must be > 0, got x[{}] = {}, y[{}] = {}", i,
                      x[i], i, y[i]));
    }
    lx[i] = std::log(x[i]);
    ly[i] = std::log(y[i]);
  }
  return fit_slope(lx, ly, alpha);
}

std::vector<double> slope_weights(const std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  double sxx = 0;
  for (double v : x) sxx += (v - mean) * (v - mean);
  if (!(sxx > 0.0)) throw InputError("slope_weights: x: all values are equal");
  std::vector<double> w;
  w.reserve(x.size());
  for (double v : x) w.push_back((v - mean) / sxx);
  return w;
}

double slope_shift_bound(const std::vector<double>& x, double lo, double hi) {
  double abs_sum = 0;
  for (double w : slope_weights(x)) abs_sum += std::abs(w);
  return 0.5 * abs_sum * (hi - lo);
}

SlopeRange slope_range(const std::vector<double>& x, const std::vector<double>& lower,
                       const std::vector<double>& upper) {
  if (lower.size() != x.size() || upper.size() != x.size()) {
    throw InputError("slope_range: x, lower and upper must have equal sizes");
  }
  const std::vector<double> w = slope_weights(x);
  SlopeRange r;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!(lower[i] <= upper[i])) throw InputError("slope_range: lower[i] > upper[i]");
    r.lower += w[i] * (w[i] > 0 ? lower[i] : upper[i]);
    r.upper += w[i] * (w[i] > 0 ? upper[i] : lower[i]);
  }
  return r;
}

}  // namespace fedverify::estimators
