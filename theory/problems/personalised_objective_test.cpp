// The personalised optimum x(λ) of theory/problems/personalised_objective.hpp against a case
// solved by hand.
#include <gtest/gtest.h>

#include "theory/base/linalg.hpp"
#include "theory/problems/personalised_objective.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify {
namespace {

// Brute force: n = 2, d = 1, f_i = (a_i/2)(x − b_i)². By hand, with x̄ = (x_1 + x_2)/2: (a_1 + λ/2)
// x_1 − (λ/2) x_2 = a_1 b_1, −(λ/2) x_1 + (a_2 + λ/2) x_2 = a_2 b_2 (Cramer).
TEST(L2gdOptimum, MatchesHandSolvedTwoClientScalarCase) {
  const double a1 = 0.5, b1 = -1.0, a2 = 2.0, b2 = 3.0, lambda = 0.7;
  theory::QuadraticProblem q(
      {{Matrix::Constant(1, 1, a1), Vector::Constant(1, b1), Matrix::Zero(1, 1)},
       {Matrix::Constant(1, 1, a2), Vector::Constant(1, b2), Matrix::Zero(1, 1)}});
  const double h = lambda / 2, det = (a1 + h) * (a2 + h) - h * h;
  const double x1 = (a1 * b1 * (a2 + h) + h * a2 * b2) / det;
  const double x2 = ((a1 + h) * a2 * b2 + h * a1 * b1) / det;
  const Matrix x = theory::personalised_optimum(q, lambda);
  EXPECT_NEAR(x(0, 0), x1, 1e-14 * 8);  // a few ulps of |x| ≈ 3
  EXPECT_NEAR(x(0, 1), x2, 1e-14 * 8);
}

}  // namespace
}  // namespace fedverify
