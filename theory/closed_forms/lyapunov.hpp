// Lyapunov operators: the continuous operator 𝒜 of THEORY (N1) and the discrete Lyapunov
// (Stein) equation of linear-Gaussian chains, THEORY (F5)/(S6).
//
// No d²×d² Kronecker system is ever formed: 𝒜 is applied in the eigenbasis of 𝐇, and the
// discrete equation is solved by a Bartels–Stewart column sweep on a complex Schur form, O(n³):
// the real Schur form (Eigen's RealSchur, ≈ 4× faster than its ComplexSchur) with each 2×2 block
// of a complex-conjugate pair triangularised by one complex rotation, then one triangular
// back substitution per column.
#pragma once

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// 𝒜C: the solution Σ of 𝐇Σ + Σ𝐇 = C, for symmetric positive-definite 𝐇.   THEORY (N1)
Matrix lyapunov_operator(const Matrix& hessian, const Matrix& c);

// Solves the discrete Lyapunov equation of the chain z' = (I − γD) z + noise,
//     X = (I − γD) X (I − γD)ᵀ + γ G,
// written in the divided form  D X + X Dᵀ − γ D X Dᵀ = G  so that nothing of order γ is
// computed as a difference of O(1) numbers: when the round map is M = I − γD with D = O(1),
// pass D = (I − M)/γ computed analytically and G = Cov(noise)/γ. With γ = 1 and D = I − M it
// is the plain Stein equation X = M X Mᵀ + G. With γ = 0 it is the continuous equation
// D X + X Dᵀ = G.
// Requires every eigenvalue of I − γD inside the unit disc (γ > 0) or every eigenvalue of D in
// the open right half-plane (γ = 0); throws std::domain_error otherwise.
Matrix discrete_lyapunov_solve(const Matrix& d, double gamma, const Matrix& g);

// The same solve reporting the spectral radius of I − γD read off the same Schur form (so a
// caller that needs both pays for one Schur decomposition). When the iteration has no stationary
// law (see above) `stable` is false, `x` is empty and spectral_radius is still set (γ > 0).
struct StationarySolve {
  Matrix x;
  double spectral_radius = 0;  // max_i |1 − γ t_ii| over the eigenvalues t_ii of D
  bool stable = false;
};
StationarySolve discrete_lyapunov_solve_checked(const Matrix& d, double gamma, const Matrix& g);

// The same solver with its Schur form kept, for callers that solve many equations with one D
// (the fixed-point iteration of the linear-sa second moments, THEORY (L1)). Results are those of
// discrete_lyapunov_solve, bit for bit (it is implemented by this class).
class DiscreteLyapunovSolver {
 public:
  DiscreteLyapunovSolver(const Matrix& d, double gamma);
  bool stable() const { return stable_; }
  double spectral_radius() const { return spectral_radius_; }  // of I − γD (γ > 0)
  // X with D X + X Dᵀ − γ D X Dᵀ = G; throws std::domain_error unless stable().
  Matrix solve(const Matrix& g) const;

 private:
  Eigen::MatrixXcd u_, t_;
  double gamma_;
  double spectral_radius_ = 0;
  bool stable_ = true;
};

// Plain form X = M X Mᵀ + Q (γ = 1, D = I − M).
Matrix stein_solve(const Matrix& m, const Matrix& q);

// Largest modulus of the eigenvalues of a square matrix.
double spectral_radius(const Matrix& m);

}  // namespace fedverify::theory
