#include "theory/closed_forms/lyapunov.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>

namespace fedverify::theory {

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

Matrix discrete_lyapunov_solve(const Matrix& d, double gamma, const Matrix& g) {
  using Complex = std::complex<double>;
  using CMatrix = Eigen::MatrixXcd;
  const Eigen::Index n = d.rows();
  const Eigen::ComplexSchur<Matrix> schur(d);  // D = U T U*, T upper triangular
  const CMatrix& u = schur.matrixU();
  const CMatrix& t = schur.matrixT();

  // Stability: |1 − γ t_ii| < 1 (discrete) or Re t_ii > 0 (continuous, γ = 0).
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool stable =
        gamma > 0 ? std::abs(Complex(1.0) - gamma * t(i, i)) < 1.0 : t(i, i).real() > 0.0;
    if (!stable) {
      throw std::domain_error("discrete_lyapunov_solve: the iteration has no stationary law");
    }
  }

  // In the Schur basis, Y = U* X U and F = U* G U satisfy  T Y + Y T* − γ T Y T* = F.
  // Column j involves Y_l for l ≥ j only; sweeping j downwards, with S_j = Σ_{l>j} conj(T_jl) Y_l,
  //   [(1 − γ conj t_jj) T + conj t_jj I] Y_j = F_j − (I − γT) S_j,
  // an upper-triangular system whose diagonal t_ii + conj t_jj − γ t_ii conj t_jj is bounded
  // away from 0 exactly when the chain is stable.
  const CMatrix f = u.adjoint() * g.cast<Complex>() * u;
  CMatrix y = CMatrix::Zero(n, n);
  Eigen::VectorXcd s(n);
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    s.setZero();
    for (Eigen::Index l = j + 1; l < n; ++l) s += std::conj(t(j, l)) * y.col(l);
    const Complex tjj = std::conj(t(j, j));
    CMatrix lhs = (Complex(1.0) - gamma * tjj) * t;
    lhs.diagonal().array() += tjj;
    const Eigen::VectorXcd rhs = f.col(j) - (s - gamma * (t * s));
    y.col(j) = lhs.triangularView<Eigen::Upper>().solve(rhs);
  }
  return (u * y * u.adjoint()).real();
}

Matrix stein_solve(const Matrix& m, const Matrix& q) {
  return discrete_lyapunov_solve(Matrix::Identity(m.rows(), m.cols()) - m, 1.0, q);
}

double spectral_radius(const Matrix& m) {
  const Eigen::ComplexEigenSolver<Matrix> es(m, /*computeEigenvectors=*/false);
  return es.eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace fedverify::theory
