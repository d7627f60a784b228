// The quadratic client objectives of theory/problems/quadratic_problem.hpp: gradient and Hessian
// against central finite differences (exact on quadratics up to round-off), ∇³f = 0.
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using theory::QuadraticProblem;
using verify::kEps;
using verify::kFdStep;
using verify::kSafety;
using verify::random_matrix;
using verify::small_options;

TEST(Derivatives, QuadraticGradientAndHessianMatchFiniteDifferences) {
  // Central differences are exact on polynomials of degree ≤ 2: only round-off remains.
  const QuadraticProblem p = theory::generate_quadratic(small_options(23));
  Stream s(24, Purpose::test);
  const double h = kFdStep;
  for (int c = 0; c < p.num_clients(); ++c) {
    const Vector x = random_matrix(s, 3, 1).col(0);
    const Vector grad = p.gradient(c, x);
    for (int i = 0; i < 3; ++i) {
      const Vector e = Vector::Unit(3, i);
      const double fd_g = (p.value(c, x + h * e) - p.value(c, x - h * e)) / (2 * h);
      EXPECT_NEAR(grad(i), fd_g, kSafety * kEps * std::max(1.0, std::abs(p.value(c, x))) / h);
      const Vector fd_h = (p.gradient(c, x + h * e) - p.gradient(c, x - h * e)) / (2 * h);
      EXPECT_LE((p.hessian(c, x).col(i) - fd_h).cwiseAbs().maxCoeff(),
                kSafety * kEps * std::max(1.0, grad.cwiseAbs().maxCoeff()) / h);
    }
    EXPECT_EQ(p.third_derivative(c, x, Matrix::Ones(3, 3)).norm(), 0.0);  // ∇³f = 0
  }
}

// Statement: noise_factor(c) = R with R Rᵀ = S, lower triangular up to a row permutation (the
// structure the sampler's product exploits), for a positive definite S, a rank-2 S (d = 6) and
// S = 0. Decision (deterministic): ‖R Rᵀ − S‖_max ≤ kSafety·d·ε·‖S‖_max (pivoted LDLᵀ is backward
// stable); the rows, sorted by their last non-zero column, end at columns 0, 1, …, d − 1 at most.
// Planted: the symmetric square root (dense) fails the triangularity check.
TEST(QuadraticProblem, NoiseFactorIsATriangularFactorOfTheCovariance) {
  constexpr int kD = 6;
  Stream s(17, Purpose::test);
  const Matrix g = random_matrix(s, kD, kD);
  const Matrix thin = random_matrix(s, kD, 2);
  // The sorted row extents: extent[p] = 1 + the last non-zero column of the p-th row.
  const auto triangular_up_to_rows = [](const Matrix& r) {
    std::vector<int> extent;
    for (int i = 0; i < r.rows(); ++i) {
      int last = 0;
      for (int k = 0; k < r.cols(); ++k) last = r(i, k) != 0.0 ? k + 1 : last;
      extent.push_back(last);
    }
    std::sort(extent.begin(), extent.end());
    for (int p = 0; p < r.rows(); ++p) {
      if (extent[p] > p + 1) return false;
    }
    return true;
  };
  for (const Matrix& cov :
       {Matrix(g * g.transpose()), Matrix(thin * thin.transpose()), Matrix(Matrix::Zero(kD, kD))}) {
    const QuadraticProblem p({{Matrix::Identity(kD, kD), Vector::Zero(kD), cov}});
    const Matrix& r = p.noise_factor(0);
    const double scale = std::max(cov.cwiseAbs().maxCoeff(), 1e-300);
    EXPECT_LE((r * r.transpose() - p.client(0).noise_cov).cwiseAbs().maxCoeff(),
              kSafety * kD * kEps * scale);
    EXPECT_TRUE(triangular_up_to_rows(r));
  }
  const Eigen::SelfAdjointEigenSolver<Matrix> es(g * g.transpose());
  const Matrix root =
      es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() * es.eigenvectors().transpose();
  EXPECT_FALSE(triangular_up_to_rows(root));
}

}  // namespace
}  // namespace fedverify
