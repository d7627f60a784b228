// The certified third-derivative bound Q (theory/problems/third_derivative_bound.hpp, THEORY (S5)):
// its constant max|φ'''| against a scan of the loss's own third derivative, the bound against
// |∇³f_c(x)[u, u, u]| from LogisticProblem::third_derivative at random points and directions
// (it must dominate every one), and its attainment on a one-sample problem (it must be sharp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "theory/base/rng.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"
#include "theory/problems/third_derivative_bound.hpp"

namespace fedverify::theory {
namespace {

// |∇³f_c(x)[u, u, u]| = |uᵀ ∇³f_c(x)[uuᵀ]| (Problem::third_derivative contracts two slots).
double cubic_form(const Problem& p, int c, const Vector& x, const Vector& u) {
  return std::abs(u.dot(p.third_derivative(c, x, u * u.transpose())));
}

// The scan's grid step 1e-4 around the maximiser s = log((3 + √3)/(3 − √3)) ≈ 1.317: the scanned
// maximum is below the true one by at most ½|φ''''|·(5e-5)² < 1e-9.
TEST(ThirdDerivativeBound, LogisticConstantIsTheLossMaximum) {
  double scanned = 0;
  for (double s = -4; s <= 4; s += 1e-4) scanned = std::max(scanned, std::abs(logistic_d3(s)));
  EXPECT_LE(scanned, kLogisticThirdDerivativeMax);
  EXPECT_GT(scanned, kLogisticThirdDerivativeMax - 1e-9);
}

// 2000 random (client, x, u), x of norm up to 6 so that the margins y aᵀx cover the maximiser:
// every |∇³f_c(x)[u, u, u]| ≤ Q (round-off: 1e-12 relative). The largest sampled value is
// recorded: it must be a sizeable fraction of Q (> 2 %) — a bound off by 50× would not be one
// worth stating.
TEST(ThirdDerivativeBound, DominatesSampledThirdDerivativesOfLogistic) {
  const LogisticProblem p = verify::logistic(3, 4, 30, 1);
  const double q = third_derivative_bound(p);
  estimators::Stream s(5, estimators::Purpose::test);
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    const int c = static_cast<int>(s.below(4));
    Vector x(3), u(3);
    for (int i = 0; i < 3; ++i) x(i) = 2.0 * s.normal();
    for (int i = 0; i < 3; ++i) u(i) = s.normal();
    u.normalize();
    const double v = cubic_form(p, c, x, u);
    EXPECT_LE(v, q * (1 + 1e-12));
    worst = std::max(worst, v);
  }
  EXPECT_GT(worst, 0.02 * q) << "Q = " << q << ", largest sampled " << worst;
}

// One client, one sample a = (3, 4), label +1: at x = s*·a/‖a‖² (margin s* the maximiser of
// |φ'''|) and u = a/‖a‖, |∇³f[u, u, u]| = max|φ'''|·‖a‖³ = Q exactly (‖a‖ = 5, λ_max(aaᵀ) = 25).
TEST(ThirdDerivativeBound, IsAttainedOnOneSample) {
  Matrix a(1, 2);
  a << 3, 4;
  const LogisticProblem p({{a, Vector::Ones(1)}}, 0.0, 1);
  const double q = third_derivative_bound(p);
  EXPECT_NEAR(q, kLogisticThirdDerivativeMax * 125.0, 1e-12);
  const double s_star = std::log((3 + std::sqrt(3.0)) / (3 - std::sqrt(3.0)));
  const Vector dir = a.row(0).transpose() / 5.0;
  EXPECT_NEAR(cubic_form(p, 0, s_star / 5.0 * dir, dir), q, 1e-12 * q);
}

TEST(ThirdDerivativeBound, AffineFieldsHaveNone) {
  EXPECT_EQ(third_derivative_bound(verify::quadratic(2, 3, 0.1)), 0.0);
}

}  // namespace
}  // namespace fedverify::theory
