// The GMM estimator (THEORY M5) against its definition: θ_GMM minimises the profile objective
// Q(θ) = (b − Gθ)ᵀW⁻¹(b − Gθ), so its gradient −2GᵀW⁻¹(b − Gθ) vanishes there and Q grows in
// every direction; τ* maximises U(θ_GMM, ·), so b − Gθ − ½Wτ* = 0. Also: with q = p (just
// identified) θ_GMM = G⁻¹b whatever W.
#include "theory/closed_forms/linear_iv_gmm.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::theory {
namespace {

Matrix gaussian(estimators::Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  }
  return m;
}

TEST(GmmEstimator, StationaryPointOfTheProfileObjective) {
  estimators::Stream s(3, estimators::Purpose::test);
  for (int trial = 0; trial < 20; ++trial) {
    const int p = 1 + trial % 3, q = p + trial % 4;
    const Matrix g = gaussian(s, q, p);
    const Matrix root = gaussian(s, q, q);
    const Matrix w = root * root.transpose() + 0.1 * Matrix::Identity(q, q);
    const Vector b = gaussian(s, q, 1);
    const GmmEquilibrium e = gmm_estimator(g, w, b);
    const Vector resid = b - g * e.theta;
    // Backward-stable solves: residuals of order ε · κ(W) · scale; κ(W) ≲ 1e3 for these draws.
    constexpr double kTolerance = 1e-10;
    EXPECT_LE((g.transpose() * w.llt().solve(resid)).norm(), kTolerance) << trial;
    EXPECT_LE((resid - 0.5 * w * e.tau).norm(), kTolerance) << trial;
    const auto objective = [&](const Vector& t) {
      const Vector r = b - g * t;
      return r.dot(w.llt().solve(r));
    };
    for (int k = 0; k < p; ++k) {
      const Vector step = 1e-3 * Vector::Unit(p, k);
      EXPECT_GT(objective(e.theta + step), objective(e.theta)) << trial;
      EXPECT_GT(objective(e.theta - step), objective(e.theta)) << trial;
    }
    if (p == q) {
      EXPECT_LE((e.theta - g.partialPivLu().solve(b)).norm(), kTolerance) << trial;
    }
  }
}

TEST(GmmEstimator, RefusesSingularInputs) {
  const Matrix g = Matrix::Ones(3, 2);  // rank 1
  EXPECT_THROW(gmm_estimator(g, Matrix::Identity(3, 3), Vector::Ones(3)), InputError);
  EXPECT_THROW(gmm_estimator(Matrix::Identity(2, 2), -Matrix::Identity(2, 2), Vector::Ones(2)),
               InputError);
}

}  // namespace
}  // namespace fedverify::theory
