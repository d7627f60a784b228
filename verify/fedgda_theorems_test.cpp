// FedGDA's fixed-point bias (THEORY M2, derived here) and first-order covariance against the exact
// stationary law on a heterogeneous quadratic game (theory/algorithms/fedgda.hpp).
//
// Statement: along a geometric grid of steps α (α₂/α₁ = 1 and 0.5, R = 5), ‖exact mean − z*‖ is of
// order α (so the limit points of FedGDA are not the equilibria for R > 1 with heterogeneous
// clients), and exact − first order is O(α²) for the mean and the covariance.
// Decision (deterministic, remainder order): the least-squares log–log slope's 99 % lower bound
// (estimators/statistics/regression.hpp) exceeds kRequiredOrder = 1.5 for both remainders, and
// the bias slope's interval contains 1. Planted: (M2) without its ½ leaves a first-order
// remainder, slope ≈ 1 (upper bound < 1.5).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/fedgda.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kRequiredOrder = 1.5;
constexpr double kSlopeAlpha = 0.01;

TEST(FedgdaTheorems, M2IsTheFirstOrderBiasAndTheCovarianceIsFirstOrderToo) {
  const theory::QuadraticGame g = verify::small_game();
  for (const double ratio : {1.0, 0.5}) {  // α₂/α₁
    std::vector<double> alpha, bias, bias_remainder, cov_remainder, planted_remainder;
    for (double a = 1e-3; a <= 3.3e-2; a *= 2.0) {
      const theory::GdaSetting s{a, ratio * a, 5};
      const theory::ExactMoments exact = theory::fedgda_exact(g, s);
      const theory::GdaFirstOrder first = theory::fedgda_first_order(g, s);
      alpha.push_back(a);
      bias.push_back((exact.mean - g.equilibrium()).norm());
      bias_remainder.push_back((exact.mean - g.equilibrium() - first.bias).norm());
      cov_remainder.push_back((exact.cov - first.cov).norm());
      // Planted: (M2) without its ½ (the R − 1 pairs of steps counted twice).
      planted_remainder.push_back((exact.mean - g.equilibrium() - 2.0 * first.bias).norm());
    }
    const auto fit = [&](const std::vector<double>& y) {
      return estimators::fit_log_log_slope(alpha, y, kSlopeAlpha);
    };
    const auto b = fit(bias), br = fit(bias_remainder), cr = fit(cov_remainder),
               pr = fit(planted_remainder);
    std::printf(
        "alpha2/alpha1 = %.1f: slopes bias %.3f [%.3f, %.3f], bias remainder %.3f [%.3f, "
        "%.3f], covariance remainder %.3f [%.3f, %.3f], planted %.3f [%.3f, %.3f]\n",
        ratio, b.slope, b.lower, b.upper, br.slope, br.lower, br.upper, cr.slope, cr.lower,
        cr.upper, pr.slope, pr.lower, pr.upper);
    EXPECT_TRUE(b.lower <= 1.0 && 1.0 <= b.upper) << "bias not first order, ratio " << ratio;
    EXPECT_GT(br.lower, kRequiredOrder) << "ratio " << ratio;
    EXPECT_GT(cr.lower, kRequiredOrder) << "ratio " << ratio;
    EXPECT_LT(pr.upper, kRequiredOrder) << "planted error not caught, ratio " << ratio;
  }
}

}  // namespace
}  // namespace fedverify
