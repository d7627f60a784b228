// Restarted Arnoldi for the spectral radius of a linear map given by its products, used by the
// structured linear-sa Scaffold solve (theory/algorithms/scaffold_lsa_structured.cpp, THEORY (L1)).
#pragma once

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// The largest |eigenvalue| of a real linear map of R^len (`apply` computes its product with a
// vector): the largest |Ritz value| of Arnoldi (Krylov dimension ≤ 150), restarted from the real
// and imaginary parts of the leading Ritz vector until its residual is below 1e-12 of the value or
// the value is stationary.
constexpr int kArnoldiCycles = 8;

template <class Apply>
double arnoldi_radius(const Apply& apply, Eigen::Index len) {
  const Eigen::Index m = std::min<Eigen::Index>(len, 150);
  Vector start(len);  // deterministic, with no symmetry across clients
  for (Eigen::Index i = 0; i < len; ++i) start(i) = std::sin(0.7 + 1.37 * static_cast<double>(i));
  double previous = -1;
  double radius = 0;
  for (int cycle = 0; cycle < kArnoldiCycles; ++cycle) {
    Matrix q(len, m + 1);
    Matrix hess = Matrix::Zero(m + 1, m);
    q.col(0) = start / start.norm();
    Eigen::Index k = 0;
    for (; k < m; ++k) {
      Vector w = apply(Vector(q.col(k)));
      for (int pass = 0; pass < 2; ++pass) {  // classical Gram–Schmidt, reorthogonalised
        const Vector h = q.leftCols(k + 1).transpose() * w;
        w.noalias() -= q.leftCols(k + 1) * h;
        hess.col(k).head(k + 1) += h;
      }
      hess(k + 1, k) = w.norm();
      if (!(hess(k + 1, k) > 1e-14 * hess.col(k).norm())) {
        ++k;
        break;  // invariant subspace: the Ritz values are eigenvalues
      }
      q.col(k + 1) = w / hess(k + 1, k);
    }
    const Eigen::EigenSolver<Matrix> es(hess.topLeftCorner(k, k));
    Eigen::Index best = 0;
    es.eigenvalues().cwiseAbs().maxCoeff(&best);
    radius = std::abs(es.eigenvalues()(best));
    const Eigen::VectorXcd y = es.eigenvectors().col(best);
    const double residual = k < m ? 0.0 : hess(m, m - 1) * std::abs(y(k - 1)) / y.norm();
    if (residual <= 1e-12 * radius || std::abs(radius - previous) <= 1e-13 * radius) break;
    previous = radius;
    const Eigen::VectorXcd ritz = q.leftCols(k).cast<std::complex<double>>() * y;
    start = ritz.real() + ritz.imag();
  }
  return radius;
}

}  // namespace fedverify::theory
