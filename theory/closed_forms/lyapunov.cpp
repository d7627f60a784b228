#include "theory/closed_forms/lyapunov.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <utility>

namespace fedverify::theory {

namespace {

using Complex = std::complex<double>;
using CMatrix = Eigen::MatrixXcd;

// A complex Schur form D = U T U* from the real Schur form (Eigen's RealSchur, about 4× faster
// than its ComplexSchur at n = 100–500): each 2×2 diagonal block of a complex-conjugate pair is
// made triangular by one complex Givens rotation (the rsf2csf step of Golub & Van Loan, §7.4.1).
struct ComplexSchurForm {
  CMatrix u;
  CMatrix t;
};

ComplexSchurForm complex_schur(const Matrix& d) {
  const Eigen::Index n = d.rows();
  const Eigen::RealSchur<Matrix> real(d);
  ComplexSchurForm s{real.matrixU().cast<Complex>(), real.matrixT().cast<Complex>()};
  for (Eigen::Index m = n - 1; m >= 1; --m) {
    const Complex sub = s.t(m, m - 1);
    if (sub == Complex(0.0)) continue;
    // Eigenvalue λ of the block [a b; c e] (c = sub); the rotation maps its eigenvector
    // (λ − e, c) to the first unit vector, so the rotated block is upper triangular.
    const Complex a = s.t(m - 1, m - 1);
    const Complex b = s.t(m - 1, m);
    const Complex e = s.t(m, m);
    const Complex half = 0.5 * (a - e);
    const Complex lambda = e + half + std::sqrt(half * half + b * sub);
    const Complex mu = lambda - e;
    const double r = std::hypot(std::abs(mu), std::abs(sub));
    const Complex c = mu / r;
    const Complex sn = sub / r;
    // G = [conj(c) conj(sn); −sn c]: rows m−1, m of T from column m−1 on; columns m−1, m of T
    // (rows 0..m) and of U by G*.
    for (Eigen::Index j = m - 1; j < n; ++j) {
      const Complex x = s.t(m - 1, j);
      const Complex y = s.t(m, j);
      s.t(m - 1, j) = std::conj(c) * x + std::conj(sn) * y;
      s.t(m, j) = -sn * x + c * y;
    }
    for (Eigen::Index i = 0; i <= m; ++i) {
      const Complex x = s.t(i, m - 1);
      const Complex y = s.t(i, m);
      s.t(i, m - 1) = c * x + sn * y;
      s.t(i, m) = -std::conj(sn) * x + std::conj(c) * y;
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const Complex x = s.u(i, m - 1);
      const Complex y = s.u(i, m);
      s.u(i, m - 1) = c * x + sn * y;
      s.u(i, m) = -std::conj(sn) * x + std::conj(c) * y;
    }
    s.t(m, m - 1) = 0.0;
  }
  return s;
}

}  // namespace

Matrix lyapunov_operator(const Matrix& hessian, const Matrix& c) {
  // THEORY (N1): Σ = V [ (VᵀCV)_ij / (h_i + h_j) ] Vᵀ with 𝐇 = V diag(h) Vᵀ.
  const Eigen::SelfAdjointEigenSolver<Matrix> es(hessian);
  const Matrix& v = es.eigenvectors();
  const Vector& h = es.eigenvalues();
  Matrix inner = v.transpose() * c * v;
  for (Eigen::Index j = 0; j < inner.cols(); ++j) {
    for (Eigen::Index i = 0; i < inner.rows(); ++i) inner(i, j) /= h(i) + h(j);
  }
  return v * inner * v.transpose();
}

DiscreteLyapunovSolver::DiscreteLyapunovSolver(const Matrix& d, double gamma) : gamma_(gamma) {
  ComplexSchurForm schur = complex_schur(d);  // D = U T U*, T upper triangular
  u_ = std::move(schur.u);
  t_ = std::move(schur.t);
  const Eigen::Index n = d.rows();
  // Stability: |1 − γ t_ii| < 1 (discrete) or Re t_ii > 0 (continuous, γ = 0).
  for (Eigen::Index i = 0; i < n; ++i) {
    spectral_radius_ = std::max(spectral_radius_, std::abs(Complex(1.0) - gamma * t_(i, i)));
    const bool stable =
        gamma > 0 ? std::abs(Complex(1.0) - gamma * t_(i, i)) < 1.0 : t_(i, i).real() > 0.0;
    stable_ = stable_ && stable;
  }
}

Matrix DiscreteLyapunovSolver::solve(const Matrix& g) const {
  if (!stable_) {
    throw std::domain_error("discrete_lyapunov_solve: the iteration has no stationary law");
  }
  const CMatrix& u = u_;
  const CMatrix& t = t_;
  const double gamma = gamma_;
  const Eigen::Index n = t.rows();
  // In the Schur basis, Y = U* X U and F = U* G U satisfy  T Y + Y T* − γ T Y T* = F.
  // Column j involves Y_l for l ≥ j only; sweeping j downwards, with S_j = Σ_{l>j} conj(T_jl) Y_l,
  //   [(1 − γ conj t_jj) T + conj t_jj I] Y_j = F_j − (I − γT) S_j,
  // an upper-triangular system whose diagonal t_ii + conj t_jj − γ t_ii conj t_jj is bounded
  // away from 0 exactly when the chain is stable. It is solved by column-oriented back
  // substitution on T itself (O(n²) per column, nothing of size n² formed).
  const CMatrix f = u.adjoint() * g.cast<Complex>() * u;
  CMatrix y = CMatrix::Zero(n, n);
  Eigen::VectorXcd s(n);
  Eigen::VectorXcd w(n);
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    s.setZero();
    for (Eigen::Index l = j + 1; l < n; ++l) s += std::conj(t(j, l)) * y.col(l);
    const Complex tjj = std::conj(t(j, j));
    const Complex scale = Complex(1.0) - gamma * tjj;
    w = f.col(j) - s;
    if (gamma != 0.0) {
      Eigen::VectorXcd ts = t.triangularView<Eigen::Upper>() * s;
      w += Complex(gamma) * ts;
    }
    for (Eigen::Index i = n - 1; i >= 0; --i) {
      const Complex yi = w(i) / (scale * t(i, i) + tjj);
      y(i, j) = yi;
      if (i > 0) w.head(i) -= (scale * yi) * t.col(i).head(i);
    }
  }
  return (u * y * u.adjoint()).real();
}

StationarySolve discrete_lyapunov_solve_checked(const Matrix& d, double gamma, const Matrix& g) {
  const DiscreteLyapunovSolver solver(d, gamma);
  StationarySolve out;
  out.spectral_radius = solver.spectral_radius();
  out.stable = solver.stable();
  if (!out.stable) return out;
  out.x = solver.solve(g);
  return out;
}

Matrix discrete_lyapunov_solve(const Matrix& d, double gamma, const Matrix& g) {
  StationarySolve solve = discrete_lyapunov_solve_checked(d, gamma, g);
  if (!solve.stable) {
    throw std::domain_error("discrete_lyapunov_solve: the iteration has no stationary law");
  }
  return std::move(solve.x);
}

Matrix stein_solve(const Matrix& m, const Matrix& q) {
  return discrete_lyapunov_solve(Matrix::Identity(m.rows(), m.cols()) - m, 1.0, q);
}

double spectral_radius(const Matrix& m) {
  const Eigen::ComplexEigenSolver<Matrix> es(m, /*computeEigenvectors=*/false);
  return es.eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace fedverify::theory
