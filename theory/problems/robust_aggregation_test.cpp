// RFA's rules (theory/problems/robust_aggregation.*, THEORY (A6)):
//  - the smoothed Weiszfeld median satisfies the first-order condition Σ_c (z − y_c)/‖z − y_c‖ = 0
//    (to 1e-10 after 500 iterations on points in general position), is equivariant under
//    translation and scaling, and moves by a bounded amount when 2 of 5 points go to 1e6 (its
//    breakdown point is ½), where the mean moves by 4e5;
//  - the trimmed mean by hand, and β = 0 is the mean.
#include "theory/problems/robust_aggregation.hpp"

#include <gtest/gtest.h>

namespace fedverify::theory {
namespace {

Matrix five_points() {
  Matrix y(2, 5);
  y << 0.0, 1.0, 0.3, -0.7, 2.0,  //
      0.0, 0.2, 1.1, 0.5, -0.4;
  return y;
}

TEST(RobustAggregation, WeiszfeldMedianSatisfiesItsFirstOrderCondition) {
  const Matrix y = five_points();
  const Vector z = geometric_median(y, Vector::Ones(5), 500, 1e-12);
  Vector g = Vector::Zero(2);
  for (int c = 0; c < 5; ++c) g += (z - y.col(c)) / (z - y.col(c)).norm();
  EXPECT_LT(g.norm(), 1e-10);
  // Equivariance: GM{a + b y_c} = a + b GM{y_c}.
  const Vector a = Vector::Constant(2, 3.0);
  const Matrix moved = (2.5 * y).colwise() + a;
  EXPECT_LT((geometric_median(moved, Vector::Ones(5), 500, 1e-12) - (a + 2.5 * z)).norm(), 1e-10);
}

TEST(RobustAggregation, MedianResistsTwoOfFiveOutliers) {
  Matrix y = five_points();
  const Vector clean = geometric_median(y, Vector::Ones(5), 500, 1e-12);
  y.col(3) << 1e6, -1e6;
  y.col(4) << -1e6, 5e5;
  const Vector z = geometric_median(y, Vector::Ones(5), 500, 1e-12);
  EXPECT_LT((z - clean).norm(), 10.0);  // bounded: the honest points span ~1
  EXPECT_GT((y.rowwise().mean() - clean).norm(), 1e5);
}

TEST(RobustAggregation, TrimmedMeanByHand) {
  Matrix y(1, 5);
  y << 5.0, -100.0, 1.0, 3.0, 1e9;
  EXPECT_DOUBLE_EQ(trimmed_mean(y, 0.2)(0), 3.0);  // k = 1: the mean of 1, 3, 5
  EXPECT_DOUBLE_EQ(trimmed_mean(y, 0.0)(0), y.mean());
  EXPECT_DOUBLE_EQ(trimmed_mean(y, 0.4)(0), 3.0);  // k = 2: the median
}

}  // namespace
}  // namespace fedverify::theory
