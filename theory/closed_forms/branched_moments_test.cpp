// The exact moments of a branched random affine iteration
// (theory/closed_forms/branched_moments.hpp, THEORY (P6)) against brute force: every path of k
// steps enumerated with its probability (an independent computation of E e_k and E e_k e_kᵀ), and
// ρ₂ against the eigenvalues of the dense Kronecker form Σ_b π_b N_b ⊗ N_b.
#include "theory/closed_forms/branched_moments.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <stdexcept>
#include <vector>

namespace fedverify::theory {
namespace {

// Three branches on ℝ³ with distinct, non-commuting maps and non-zero offsets.
std::vector<AffineBranch> three_branches() {
  std::vector<AffineBranch> b(3);
  const double probabilities[] = {0.5, 0.3, 0.2};
  for (int i = 0; i < 3; ++i) {
    b[i].probability = probabilities[i];
    b[i].map = Matrix(3, 3);
    b[i].offset = Vector(3);
    for (int r = 0; r < 3; ++r) {
      b[i].offset(r) = 0.1 * (r - i);
      for (int c = 0; c < 3; ++c) b[i].map(r, c) = (r == c ? 0.7 : 0.0) + 0.13 * (i + 1) * (r - c);
    }
  }
  return b;
}

struct Enumerated {
  Vector mean;
  Matrix second;
};

// Σ over the 3^k paths of P(path) e_k(path) and P(path) e_k e_kᵀ.
Enumerated enumerate(const std::vector<AffineBranch>& b, const Vector& e0, int k) {
  Enumerated out{Vector::Zero(e0.size()), Matrix::Zero(e0.size(), e0.size())};
  int paths = 1;
  for (int i = 0; i < k; ++i) paths *= static_cast<int>(b.size());
  for (int path = 0; path < paths; ++path) {
    Vector e = e0;
    double probability = 1;
    int code = path;
    for (int i = 0; i < k; ++i) {
      const AffineBranch& branch = b[code % b.size()];
      code /= static_cast<int>(b.size());
      e = branch.map * e + branch.offset;
      probability *= branch.probability;
    }
    out.mean += probability * e;
    out.second += probability * e * e.transpose();
  }
  return out;
}

TEST(BranchedMoments, AgreesWithEveryPathEnumerated) {
  const std::vector<AffineBranch> b = three_branches();
  const Vector e0 = Vector::LinSpaced(3, -1.0, 2.0);
  for (const auto compile : {BranchedMoments::Compile::never, BranchedMoments::Compile::always}) {
    BranchedMoments moments(b, e0, compile);
    for (int k = 1; k <= 7; ++k) {
      moments.step();
      const Enumerated ref = enumerate(b, e0, k);
      // Both sums are 3^k ≤ 2187 terms of size ≤ 10: round-off ≲ 1e-13 relative.
      EXPECT_LT((moments.mean() - ref.mean).norm(), 1e-12 * (1 + ref.mean.norm())) << k;
      EXPECT_LT((moments.second_moment() - ref.second).norm(), 1e-12 * (1 + ref.second.norm()))
          << k;
      EXPECT_NEAR(moments.mean_square(1, 2), ref.second(1, 1) + ref.second(2, 2), 1e-12);
    }
  }
}

TEST(BranchedMoments, CompiledAndDirectStepsAgree) {
  const std::vector<AffineBranch> b = three_branches();
  const Vector e0 = Vector::LinSpaced(3, -1.0, 2.0);
  BranchedMoments direct(b, e0, BranchedMoments::Compile::never);
  BranchedMoments compiled(b, e0, BranchedMoments::Compile::always);
  for (int k = 0; k < 50; ++k) {
    direct.step();
    compiled.step();
  }
  EXPECT_LT((direct.mean() - compiled.mean()).norm(), 1e-13 * (1 + direct.mean().norm()));
  EXPECT_LT((direct.second_moment() - compiled.second_moment()).norm(),
            1e-13 * (1 + direct.second_moment().norm()));
}

TEST(BranchedMoments, RadiusIsTheKroneckerFormsSpectralRadius) {
  const std::vector<AffineBranch> b = three_branches();
  Matrix kron = Matrix::Zero(9, 9);
  for (const AffineBranch& x : b) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        kron.block(3 * i, 3 * j, 3, 3) += x.probability * x.map(i, j) * x.map;
  }
  const double expected = Eigen::EigenSolver<Matrix>(kron).eigenvalues().cwiseAbs().maxCoeff();
  EXPECT_NEAR(second_moment_radius(b), expected, 1e-11 * expected);
}

TEST(BranchedMoments, ScalarRadiusIsTheMeanSquareFactor) {
  // e ← a_b e with a = 0.5 or 1.2, π = (0.6, 0.4): ρ₂ = 0.6·0.25 + 0.4·1.44 = 0.726.
  std::vector<AffineBranch> b = {{0.6, Matrix::Constant(1, 1, 0.5), Vector::Zero(1)},
                                 {0.4, Matrix::Constant(1, 1, 1.2), Vector::Zero(1)}};
  EXPECT_NEAR(second_moment_radius(b), 0.726, 1e-14);
}

TEST(BranchedMoments, RefusesABadDistributionOrSize) {
  std::vector<AffineBranch> b = three_branches();
  b[0].probability = 0.6;  // sum 1.1
  EXPECT_THROW(BranchedMoments(b, Vector::Zero(3)), std::invalid_argument);
  EXPECT_THROW(BranchedMoments(three_branches(), Vector::Zero(2)), std::invalid_argument);
  EXPECT_THROW(BranchedMoments({}, Vector::Zero(3)), std::invalid_argument);
}

}  // namespace
}  // namespace fedverify::theory
