// The slope fit of estimators/statistics/regression.hpp: an exact line, a data set computed by
// hand, the log–log slope of a power law, and the refused inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/base/input_error.hpp"
#include "verify/support/round_off.hpp"

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

}  // namespace
}  // namespace fedverify
