// The slope fit of estimators/statistics/regression.hpp: an exact line, a data set computed by
// hand, the log–log slope of a power law, and the refused inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"

namespace fedverify {
namespace {

using verify::kEps;

TEST(Regression, ExactLineHasZeroStandardError) {
  const std::vector<double> x{1, 2, 3, 4, 5};
  std::vector<double> y;
  for (double v : x) y.push_back(0.5 - 2.0 * v);
  const auto e = estimators::fit_slope(x, y, 0.05);
  // Sums of 5 exactly representable products: only the final divisions round.
  EXPECT_NEAR(e.slope, -2.0, 8 * kEps);
  EXPECT_NEAR(e.intercept, 0.5, 32 * kEps);
  EXPECT_LE(e.std_error, 32 * kEps);
  EXPECT_EQ(e.n, 5);
}

TEST(Regression, KnownDataSet) {
  // Hand computation: x = 1..5, y = (1, 3, 2, 5, 4):
  //   x̄ = 3, ȳ = 3, Sxx = 10, Sxy = 8  ⇒  b = 0.8, a = 0.6;
  //   residuals (−0.4, 0.8, −1.0, 1.2, −0.6), SSR = 3.6, s² = 1.2, se(b) = √(0.12);
  //   t_{0.975, 3} = 3.182446305284263 (tables) ⇒ CI = 0.8 ± 1.102432…
  const auto e = estimators::fit_slope({1, 2, 3, 4, 5}, {1, 3, 2, 5, 4}, 0.05);
  const double se = std::sqrt(0.12);
  const double t = 3.182446305284263;
  EXPECT_NEAR(e.slope, 0.8, 1e-14);
  EXPECT_NEAR(e.intercept, 0.6, 1e-14);
  EXPECT_NEAR(e.std_error, se, 1e-14);
  EXPECT_NEAR(e.lower, 0.8 - t * se, 1e-12);
  EXPECT_NEAR(e.upper, 0.8 + t * se, 1e-12);
}

TEST(Regression, LogLogSlopeOfAPowerLaw) {
  std::vector<double> x, y;
  for (int i = 0; i < 8; ++i) {
    x.push_back(std::pow(10.0, -4 + 0.5 * i));
    y.push_back(3.0 * std::pow(x.back(), 2.0));
  }
  const auto e = estimators::fit_log_log_slope(x, y, 0.01);
  EXPECT_NEAR(e.slope, 2.0, 1e-12);
  EXPECT_THROW(estimators::fit_log_log_slope({1, 2, 0}, {1, 2, 3}, 0.01), InputError);
  EXPECT_THROW(estimators::fit_slope({1, 2}, {1, 2}, 0.01), InputError);
  EXPECT_THROW(estimators::fit_slope({1, 1, 1}, {1, 2, 3}, 0.01), InputError);
}

// slope_shift_bound: the worst perturbation δ_i ∈ [lo, hi] puts hi where w_i > 0 and lo where
// w_i < 0, and reaches the bound exactly; random perturbations stay below it.
TEST(Regression, SlopeShiftBoundIsAttainedAndNeverExceeded) {
  const std::vector<double> x = {0.0, 1.0, 2.0, 3.0, 5.0};
  const std::vector<double> y = {0.3, -0.1, 0.7, 1.2, 2.0};
  const double lo = -0.02, hi = 0.05;
  const double bound = estimators::slope_shift_bound(x, lo, hi);
  const auto w = estimators::slope_weights(x);
  double sum = 0;
  for (double v : w) sum += v;
  EXPECT_NEAR(sum, 0.0, 1e-15);
  const double base = estimators::fit_slope(x, y, 0.05).slope;
  std::vector<double> worst = y;
  for (std::size_t i = 0; i < y.size(); ++i) worst[i] += w[i] > 0 ? hi : lo;
  EXPECT_NEAR(estimators::fit_slope(x, worst, 0.05).slope - base, bound, 1e-14);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> moved = y;
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double u = std::fmod(
          0.6180339887 * static_cast<double>(trial * 7 + static_cast<int>(i) * 3 + 1), 1.0);
      moved[i] += lo + (hi - lo) * u;
    }
    EXPECT_LE(std::abs(estimators::fit_slope(x, moved, 0.05).slope - base), bound + 1e-14);
  }
}

// slope_range: with degenerate intervals it is the fitted slope; its ends are attained by the
// corner that follows the signs of the weights, and no point of the box gives a slope outside.
TEST(Regression, SlopeRangeIsAttainedAndContainsEveryFitInTheBox) {
  const std::vector<double> x = {0.0, 0.7, 1.4, 2.9};
  const std::vector<double> lo = {1.0, 0.4, -0.3, -1.5}, hi = {1.2, 0.45, 0.1, -1.4};
  const auto same = estimators::slope_range(x, lo, lo);
  const double fitted = estimators::fit_slope(x, lo, 0.05).slope;
  EXPECT_NEAR(same.lower, fitted, 1e-14);
  EXPECT_NEAR(same.upper, fitted, 1e-14);
  const auto r = estimators::slope_range(x, lo, hi);
  const auto w = estimators::slope_weights(x);
  std::vector<double> steep = lo, flat = lo;
  for (std::size_t i = 0; i < x.size(); ++i) {
    steep[i] = w[i] > 0 ? hi[i] : lo[i];
    flat[i] = w[i] > 0 ? lo[i] : hi[i];
  }
  EXPECT_NEAR(estimators::fit_slope(x, steep, 0.05).slope, r.upper, 1e-14);
  EXPECT_NEAR(estimators::fit_slope(x, flat, 0.05).slope, r.lower, 1e-14);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = std::fmod(0.6180339887 * static_cast<double>(trial * 5 + i * 3 + 1), 1.0);
      y[i] = lo[i] + (hi[i] - lo[i]) * u;
    }
    const double b = estimators::fit_slope(x, y, 0.05).slope;
    EXPECT_GE(b, r.lower - 1e-14);
    EXPECT_LE(b, r.upper + 1e-14);
  }
  EXPECT_THROW(estimators::slope_range(x, hi, lo), InputError);
}

}  // namespace
}  // namespace fedverify
