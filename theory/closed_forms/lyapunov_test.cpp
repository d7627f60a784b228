// The Lyapunov and Stein solvers of theory/closed_forms/lyapunov.hpp against Kronecker-product
// solves for small d (theory/base/testing/kronecker.hpp), including the divided form at small γ and
// the refusal of unstable maps.
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using verify::kEps;
using verify::kSafety;
using verify::random_matrix;
using verify::relative_error;

// Symmetric positive definite with eigenvalues in [lo, hi].
Matrix random_spd(Stream& s, int d, double lo, double hi) {
  const Eigen::HouseholderQR<Matrix> qr(random_matrix(s, d, d));
  const Matrix q = qr.householderQ();
  Vector lambda(d);
  for (int i = 0; i < d; ++i) lambda(i) = lo + (hi - lo) * s.uniform();
  return symmetric_part(q * lambda.asDiagonal() * q.transpose());
}

// A non-symmetric matrix with spectral radius exactly `rho`.
Matrix random_stable(Stream& s, int d, double rho) {
  const Matrix m = random_matrix(s, d, d);
  return m * (rho / theory::spectral_radius(m));
}

TEST(Lyapunov, OperatorMatchesKroneckerFormula) {
  Stream s(1, Purpose::test);
  for (int d = 1; d <= 4; ++d) {
    const Matrix h = random_spd(s, d, 0.1, 2.0);
    const Matrix c = random_matrix(s, d, d);  // also non-symmetric right-hand sides
    const Matrix reference = verify::kronecker_lyapunov(h, c);
    const Matrix i = Matrix::Identity(d, d);
    const double kappa = verify::condition_number(verify::kron(i, h) + verify::kron(h, i));
    const double err = relative_error(theory::lyapunov_operator(h, c), reference);
    fmt::print("lyapunov_operator d={} rel.err={:.2e} (κ={:.1f})\n", d, err, kappa);
    EXPECT_LE(err, kSafety * d * d * kEps * kappa);
  }
}

TEST(Lyapunov, SteinSolveMatchesKroneckerForNonSymmetricMaps) {
  Stream s(2, Purpose::test);
  for (int d = 1; d <= 4; ++d) {
    for (double rho : {0.5, 0.95}) {
      const Matrix m = random_stable(s, d, rho);
      const Matrix g = random_matrix(s, d, d);
      const Matrix q = g * g.transpose();
      const Matrix reference = verify::kronecker_stein(m, q);
      const double kappa =
          verify::condition_number(Matrix::Identity(d * d, d * d) - verify::kron(m, m));
      const double err = relative_error(theory::stein_solve(m, q), reference);
      fmt::print("stein_solve d={} ρ={} rel.err={:.2e} (κ={:.1f})\n", d, rho, err, kappa);
      EXPECT_LE(err, kSafety * d * d * kEps * kappa);
    }
  }
}

TEST(Lyapunov, DividedFormKeepsAccuracyAtSmallGamma) {
  // X = (I − γD) X (I − γD)ᵀ + γG ⇔ D X + X Dᵀ − γ D X Dᵀ = G. At γ = 1e-6 the plain Stein
  // matrix I − M⊗M = γ(I⊗D + D⊗I) − γ² D⊗D is formed from M = I − γD whose entries carry
  // absolute rounding errors ~ε, i.e. relative errors ~ε/γ in I − M⊗M; the divided form avoids
  // the cancellation and keeps the n·ε·κ accuracy of the divided Kronecker system.
  Stream s(3, Purpose::test);
  const double gamma = 1e-6;
  for (int d = 2; d <= 4; ++d) {
    // Non-symmetric D with spectrum in the right half-plane: SPD part + skew part.
    const Matrix k = random_matrix(s, d, d);
    const Matrix dmat = random_spd(s, d, 0.2, 1.0) + 0.5 * (k - k.transpose());
    const Matrix w = random_matrix(s, d, d);
    const Matrix g = w * w.transpose();
    const Matrix reference = verify::kronecker_divided_lyapunov(dmat, gamma, g);
    const Matrix i = Matrix::Identity(d, d);
    const double kappa = verify::condition_number(verify::kron(i, dmat) + verify::kron(dmat, i) -
                                                  gamma * verify::kron(dmat, dmat));
    const double err = relative_error(theory::discrete_lyapunov_solve(dmat, gamma, g), reference);
    const Matrix m = i - gamma * dmat;
    const double naive_err = relative_error(verify::kronecker_stein(m, gamma * g), reference);
    fmt::print(
        "divided form d={} γ={} rel.err={:.2e} (bound {:.1e}); naive Kronecker Stein "
        "rel.err={:.2e}\n",
        d, gamma, err, kSafety * d * d * kEps * kappa, naive_err);
    EXPECT_LE(err, kSafety * d * d * kEps * kappa);
    EXPECT_LE(err, 1e-9);  // the accuracy the design asks of the divided form
    // The plain form pays ~ε/γ = 2e-10 (times κ); the divided form must be clearly better.
    EXPECT_LE(100 * err, naive_err);
  }
}

TEST(Lyapunov, UnstableMapsThrow) {
  Stream s(4, Purpose::test);
  const Matrix q = Matrix::Identity(3, 3);
  EXPECT_THROW(theory::stein_solve(random_stable(s, 3, 1.1), q), std::domain_error);
  EXPECT_THROW(theory::stein_solve(Matrix::Identity(3, 3), q), std::domain_error);  // ρ = 1
  Matrix d = Matrix::Identity(2, 2);
  d(1, 1) = -0.5;  // an eigenvalue in the left half-plane: no solution of the continuous form
  EXPECT_THROW(theory::discrete_lyapunov_solve(d, 0.0, Matrix::Identity(2, 2)), std::domain_error);
  // γD with an eigenvalue beyond 2: |1 − γλ| > 1.
  EXPECT_THROW(theory::discrete_lyapunov_solve(Matrix::Identity(2, 2), 2.5, Matrix::Identity(2, 2)),
               std::domain_error);
}

}  // namespace
}  // namespace fedverify
