// Compressed L2GD's exact branches and its (P8) constants (theory/algorithms/l2gd_compressed.hpp):
// with identity compressors the branches are L2GD's (P3) chain; with random-k the mean is the
// uncompressed mean (unbiased); and σ_Q², derived in THEORY (P8), equals the estimator's second
// moment at x(λ) computed by enumerating every mask, E‖G_Q(x(λ))‖² = Σ_b π_b‖r_b‖²/α² (the offset
// of a branch is −α times its stochastic gradient at x(λ)).
#include "theory/algorithms/l2gd_compressed.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

const QuadraticProblem& problem() {
  static const QuadraticProblem q = verify::quadratic(3, 3, 0.0, 9);
  return q;
}

double second_moment_at_optimum(const std::vector<AffineBranch>& branches, double alpha) {
  double sum = 0;
  for (const AffineBranch& b : branches) sum += b.probability * b.offset.squaredNorm();
  return sum / (alpha * alpha);
}

TEST(CompressedL2gd, IdentityCompressorsAreL2gd) {
  const L2gdSetting s{0.5, 0.3, 0.6};
  const Matrix x0 = Matrix::Zero(3, 3);
  L2gdMeanSquare l2gd(problem(), s, x0);
  BranchedMoments compressed(compressed_l2gd_branches(problem(), s, 0, 0, false),
                             flatten(x0 - l2gd.x_lambda()));
  for (int k = 0; k < 50; ++k) {
    l2gd.step();
    compressed.step();
  }
  EXPECT_NEAR(compressed.second_moment().trace(), l2gd.mean_square_error(),
              1e-12 * l2gd.mean_square_error());
}

TEST(CompressedL2gd, RandomKKeepsTheUncompressedMean) {
  const L2gdSetting s{0.5, 0.3, 0.2};
  const Matrix x0 = Matrix::Zero(3, 3);
  L2gdMeanSquare l2gd(problem(), s, x0);
  for (const bool exact_own : {false, true}) {
    BranchedMoments compressed(compressed_l2gd_branches(problem(), s, 1, 2, exact_own),
                               flatten(x0 - l2gd.x_lambda()));
    L2gdMeanSquare reference(problem(), s, x0);
    for (int k = 0; k < 30; ++k) {
      reference.step();
      compressed.step();
    }
    const Vector mean = flatten(reference.mean() - reference.x_lambda());
    EXPECT_LT((compressed.mean() - mean).norm(), 1e-12 * (1 + mean.norm()));
  }
}

TEST(CompressedL2gd, SigmaSquaredIsTheEstimatorsSecondMomentAtTheOptimum) {
  const L2gdSetting s{0.5, 0.3, 0.2};
  const Matrix x_lambda = personalised_optimum(problem(), s.lambda);
  // Uncompressed: σ² of (P3).
  EXPECT_NEAR(
      second_moment_at_optimum(compressed_l2gd_branches(problem(), s, 0, 0, false), s.alpha),
      l2gd_constants(problem(), s, x_lambda).sigma2, 1e-12);
  // Random-1 up (ω = 2), random-2 down (ω_M = 1/2), d = 3; both readings of the step.
  for (const bool exact_own : {false, true}) {
    const auto k = compressed_l2gd_constants(problem(), s, x_lambda, 2.0, 0.5, exact_own);
    const double enumerated =
        second_moment_at_optimum(compressed_l2gd_branches(problem(), s, 1, 2, exact_own), s.alpha);
    EXPECT_NEAR(enumerated, k.sigma2, 1e-10 * k.sigma2) << exact_own;
  }
}

TEST(CompressedL2gd, RefusesKOutsideTheDimension) {
  EXPECT_THROW(compressed_l2gd_branches(problem(), {0.5, 0.3, 0.2}, 4, 0, false),
               std::invalid_argument);
}

}  // namespace
}  // namespace fedverify::theory
