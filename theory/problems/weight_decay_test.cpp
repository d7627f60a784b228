// THEORY (C1): the transformed problem's gradient is the original gradient plus λy at every point
// and client (so SGD with weight decay λ is SGD on it, with the same noise), λ = 0 is the identity,
// and its minimiser solves the decayed first-order condition Σ_c ∇f_c(x) + Nλx = 0. Tolerance
// 1e-12 relative: one Cholesky solve of a well-conditioned 3 × 3 system (condition ≤ 1e2).
#include "theory/problems/weight_decay.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

QuadraticProblem problem() {
  auto o = verify::small_options(9);
  o.dim = 3;
  o.clients = 4;
  return generate_quadratic(o);
}

TEST(WeightDecay, GradientIsTheOriginalPlusLambdaY) {
  const QuadraticProblem q = problem();
  const double lambda = 0.3;
  const QuadraticProblem decayed = with_weight_decay(q, lambda);
  for (int c = 0; c < q.num_clients(); ++c) {
    for (const double s : {-2.0, 0.5, 3.0}) {
      const Vector y = Vector::LinSpaced(q.dim(), s, 2 * s + 1);
      const Vector expected = q.gradient(c, y) + lambda * y;
      EXPECT_LE((decayed.gradient(c, y) - expected).cwiseAbs().maxCoeff(),
                1e-12 * expected.cwiseAbs().maxCoeff());
    }
    EXPECT_EQ(decayed.client(c).noise_cov, q.client(c).noise_cov);
  }
  const Vector x = minimizer(decayed);
  Vector condition = q.num_clients() * lambda * x;
  for (int c = 0; c < q.num_clients(); ++c) condition += q.gradient(c, x);
  EXPECT_LE(condition.cwiseAbs().maxCoeff(), 1e-12 * x.cwiseAbs().maxCoeff());
}

TEST(WeightDecay, ZeroIsTheSameProblemAndNegativeIsRefused) {
  const QuadraticProblem q = problem();
  const QuadraticProblem same = with_weight_decay(q, 0);
  for (int c = 0; c < q.num_clients(); ++c) {
    EXPECT_EQ(same.client(c).hessian, q.client(c).hessian);
    EXPECT_LE((same.client(c).optimum - q.client(c).optimum).cwiseAbs().maxCoeff(), 1e-14);
  }
  EXPECT_THROW(with_weight_decay(q, -1e-3), InputError);
}

}  // namespace
}  // namespace fedverify::theory
