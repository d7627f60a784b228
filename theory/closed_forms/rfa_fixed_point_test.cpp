// RFA's fixed point and (A6) (theory/closed_forms/rfa_fixed_point.*): (A6)'s root satisfies
// Σ_c ∇f_c/‖∇f_c‖ = 0 (Newton's residual, 1e-12) and differs from x* on heterogeneous clients;
// RFA's deterministic fixed point satisfies x = GM{y_c(x)} and tends to the root at O(γ): the
// distance halves with γ (ratios in [0.4, 0.6] at γL ≤ 0.01, where the O(γ²) part is below 20 % of
// it).
#include "theory/closed_forms/rfa_fixed_point.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "theory/problems/optimum.hpp"
#include "theory/problems/robust_aggregation.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

TEST(RobustAggregation, FixedPointTendsToTheGradientMedianRoot) {
  const auto q = verify::quadratic(2, 4, 1.0);
  const Vector root = geometric_median_root(q);
  Vector condition = Vector::Zero(2);
  for (int c = 0; c < 4; ++c) condition += q.gradient(c, root).normalized();
  EXPECT_LT(condition.norm(), 1e-12);
  EXPECT_GT((root - minimizer(q)).norm(), 1e-3);  // heterogeneous: not x*
  std::vector<double> distances;
  for (const double gl : {0.01, 0.005, 0.0025}) {
    const double gamma = gl / q.smoothness();
    const Vector x = rfa_fixed_point(q, gamma, 3, 2000, 1e-12);
    Matrix y(2, 4);
    for (int c = 0; c < 4; ++c) {
      Vector yc = x;
      for (int h = 0; h < 3; ++h) yc -= gamma * q.gradient(c, yc);
      y.col(c) = yc;
    }
    EXPECT_LT((geometric_median(y, Vector::Ones(4), 2000, 1e-12) - x).norm(), 1e-13);
    distances.push_back((x - root).norm());
  }
  EXPECT_GT(distances[1] / distances[0], 0.4);
  EXPECT_LT(distances[1] / distances[0], 0.6);
  EXPECT_GT(distances[2] / distances[1], 0.4);
  EXPECT_LT(distances[2] / distances[1], 0.6);
}

}  // namespace
}  // namespace fedverify::theory
