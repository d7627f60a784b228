// Restarted GMRES on vectors, shared by the structured Lyapunov solves of THEORY (S6a) and (L1)
// (theory/algorithms/scaffold_structured.cpp, scaffold_lsa_structured.cpp).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// Restarted GMRES (Saad, Alg. 6.9) with classical Gram–Schmidt and one reorthogonalisation, for
// A x = b on vectors; `apply` computes A x. Returns x with ‖b − A x‖ ≤ tol·‖b‖, or, when the
// residual stops decreasing below 1e-11·‖b‖ (round-off floor), the best x reached.
template <class Apply>
Vector gmres(const Apply& apply, const Vector& b, double tol, const char* what) {
  constexpr int kRestart = 60;
  constexpr int kCycles = 60;
  constexpr double kFloor = 1e-11;
  const Eigen::Index len = b.size();
  const double bnorm = b.norm();
  Vector x = Vector::Zero(len);
  if (bnorm == 0.0) return x;
  Matrix basis(len, kRestart + 1);
  Matrix hess = Matrix::Zero(kRestart + 1, kRestart);
  Vector cs(kRestart), sn(kRestart), rhs(kRestart + 1);
  double previous = std::numeric_limits<double>::infinity();
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    const Vector r = b - apply(x);
    const double beta = r.norm();
    if (beta <= tol * bnorm) return x;
    if (beta <= kFloor * bnorm && beta > 0.5 * previous) return x;  // stagnated at round-off
    previous = beta;
    basis.col(0) = r / beta;
    rhs.setZero();
    rhs(0) = beta;
    hess.setZero();
    int k = 0;
    for (; k < kRestart; ++k) {
      Vector w = apply(Vector(basis.col(k)));
      Vector h = basis.leftCols(k + 1).transpose() * w;
      w.noalias() -= basis.leftCols(k + 1) * h;
      const Vector h2 = basis.leftCols(k + 1).transpose() * w;
      w.noalias() -= basis.leftCols(k + 1) * h2;
      h += h2;
      const double next = w.norm();
      for (int i = 0; i < k; ++i) {  // earlier rotations
        const double a = cs(i) * h(i) + sn(i) * h(i + 1);
        h(i + 1) = -sn(i) * h(i) + cs(i) * h(i + 1);
        h(i) = a;
      }
      const double r_kk = std::hypot(h(k), next);
      cs(k) = h(k) / r_kk;
      sn(k) = next / r_kk;
      h(k) = r_kk;
      hess.col(k).head(k + 1) = h.head(k + 1);
      rhs(k + 1) = -sn(k) * rhs(k);
      rhs(k) = cs(k) * rhs(k);
      if (std::abs(rhs(k + 1)) <= tol * bnorm || next == 0.0) {
        ++k;
        break;
      }
      basis.col(k + 1) = w / next;
    }
    const Vector coef = hess.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(rhs.head(k));
    x.noalias() += basis.leftCols(k) * coef;
  }
  const double final_residual = (b - apply(x)).norm();
  if (final_residual <= kFloor * bnorm) return x;
  throw std::runtime_error(fmt::format("{}: GMRES did not converge (relative residual {:.3g})",
                                       what, final_residual / bnorm));
}

}  // namespace fedverify::theory
