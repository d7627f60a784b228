// Kronecker-product reference solvers for small d (tests only): the d²×d² systems that
// theory/closed_forms/lyapunov.cpp deliberately never forms. vec stacks columns (vec(AXB) = (Bᵀ⊗A)
// vec X).
#pragma once

#include "theory/base/linalg.hpp"

namespace fedverify::verify {

inline Matrix kron(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      out.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
    }
  }
  return out;
}

inline Vector vec(const Matrix& m) { return Eigen::Map<const Vector>(m.data(), m.size()); }

inline Matrix unvec(const Vector& v, Eigen::Index rows) {
  return Eigen::Map<const Matrix>(v.data(), rows, v.size() / rows);
}

// 2-norm condition number by SVD.
inline double condition_number(const Matrix& m) {
  const Eigen::JacobiSVD<Matrix> svd(m);
  const Vector& s = svd.singularValues();
  return s(0) / s(s.size() - 1);
}

// Σ with 𝐇Σ + Σ𝐇 = C: vec Σ = (I⊗𝐇 + 𝐇⊗I)⁻¹ vec C.                            THEORY (N1)
inline Matrix kronecker_lyapunov(const Matrix& h, const Matrix& c) {
  const Eigen::Index d = h.rows();
  const Matrix i = Matrix::Identity(d, d);
  const Matrix k = kron(i, h) + kron(h, i);
  return unvec(k.fullPivLu().solve(vec(c)), d);
}

// X = M X Mᵀ + Q: vec X = (I − M⊗M)⁻¹ vec Q.
inline Matrix kronecker_stein(const Matrix& m, const Matrix& q) {
  const Eigen::Index n = m.rows();
  const Matrix k = Matrix::Identity(n * n, n * n) - kron(m, m);
  return unvec(k.fullPivLu().solve(vec(q)), n);
}

// D X + X Dᵀ − γ D X Dᵀ = G: vec X = (I⊗D + D⊗I − γ D⊗D)⁻¹ vec G.
inline Matrix kronecker_divided_lyapunov(const Matrix& d, double gamma, const Matrix& g) {
  const Eigen::Index n = d.rows();
  const Matrix i = Matrix::Identity(n, n);
  const Matrix k = kron(i, d) + kron(d, i) - gamma * kron(d, d);
  return unvec(k.fullPivLu().solve(vec(g)), n);
}

// SGD's exact stationary covariance on a quadratic with additive noise:               THEORY (G1)
// vec Σ_γ = γ (𝐇⊗I + I⊗𝐇 − γ 𝐇⊗𝐇)⁻¹ vec C.
inline Matrix kronecker_sgd_covariance(const Matrix& h, const Matrix& c, double gamma) {
  return gamma * kronecker_divided_lyapunov(h, gamma, c);
}

}  // namespace fedverify::verify
