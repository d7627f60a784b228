// Non-convex–PL federated games (THEORY M8; [Thesis] §3.1.4, §3.3 after Sharma et al. 2022):
// client i has
//   f_i(θ, τ) = Σ_j κ_j θ_j⁴/4 + ½ θᵀA_iθ + g_iᵀθ − ½ ‖C_iτ − D_iθ − e_i‖²,
// θ ∈ ℝ^p (min), τ ∈ ℝ^q (max), residual r_i = C_iτ − D_iθ − e_i ∈ ℝ^m. A_i symmetric and possibly
// indefinite, so f̄ is non-convex in θ (a double well when Ā has negative eigenvalues and κ > 0);
// in τ each client is a concave least-squares objective, PL with constant σ_min⁺(C_i)² but not
// strongly concave when m < q (Sharma et al.'s Assumption 4: PL in τ); the federated τ-Hessian
// −(1/N) Σ_i C_iᵀC_i must be negative definite (strongly concave on average). The client operator
// (descent in θ, ascent in τ) and its Jacobian are
//   F_i(z) = (κ∘θ³ + A_iθ + g_i + D_iᵀr_i,  C_iᵀr_i),
//   J_i(z) = [diag(3κ∘θ²) + A_i − D_iᵀD_i,  D_iᵀC_i;  −C_iᵀD_i,  C_iᵀC_i],
// the structure [A B; −Bᵀ C] of a quadratic game's M_i (quadratic_game.hpp), here depending on θ.
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct PlGameClient {
  Matrix a;  // A_i, p × p, symmetric
  Vector g;  // g_i, length p
  Matrix c;  // C_i, m × q
  Matrix d;  // D_i, m × p
  Vector e;  // e_i, length m
};

class PlGame {
 public:
  // Validates shapes, finiteness, symmetry of A_i, κ ≥ 0 and that (1/N) Σ_i C_iᵀC_i is positive
  // definite (InputError naming the field, e.g. "clients: the averaged game is not strongly
  // concave in tau (smallest eigenvalue of mean C_i^T C_i is 0)").
  PlGame(Vector quartic, std::vector<PlGameClient> clients);

  int theta_dim() const { return p_; }
  int tau_dim() const { return q_; }
  int dim() const { return p_ + q_; }
  int num_clients() const { return static_cast<int>(clients_.size()); }
  const PlGameClient& client(int i) const { return clients_[i]; }
  const Vector& quartic() const { return quartic_; }

  double value(int client, const Vector& z) const;            // f_i(z)
  Vector client_operator(int client, const Vector& z) const;  // F_i(z)
  Matrix client_jacobian(int client, const Vector& z) const;  // J_i(z)
  Vector mean_operator(const Vector& z) const;                // F̄(z)
  Matrix mean_jacobian(const Vector& z) const;                // J̄(z)

 private:
  Vector quartic_;
  std::vector<PlGameClient> clients_;
  int p_ = 0, q_ = 0;
};

// The game of claim games.nonconvex-pl (THEORY M8): p = q = 2, N = 4 clients with one residual
// row each (m = 1: every client PL but not strongly concave in τ), κ = (1, 1), Ā = −I (a double
// well in each coordinate), D_i = C_iK + h E_i with K = diag(2, ½) (strong coupling in θ₁: some
// local minimax points are not local Nash points) and the client heterogeneity h scaling A_i − Ā,
// g_i − ḡ and E_i. The numbers are in pl_game.cpp.
PlGame nonconvex_pl_game(double heterogeneity);

}  // namespace fedverify::theory
