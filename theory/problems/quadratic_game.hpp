// Quadratic federated games (THEORY M1): client i has
//   f_i(θ, τ) = ½ θᵀA_iθ + θᵀB_iτ − ½ τᵀC_iτ + a_iᵀθ − c_iᵀτ,   θ ∈ ℝ^p (min), τ ∈ ℝ^q (max),
// with A_i, C_i symmetric positive semi-definite, and gradients observed with additive Gaussian
// noise N(0, S_i) on z = (θ, τ). The client operator (descent in θ, ascent in τ) is affine,
//   F_i(z) = (∇_θ f_i, −∇_τ f_i) = M_i z + m_i,   M_i = [A_i  B_i; −B_iᵀ  C_i],   m_i = (a_i, c_i),
// and the federated equilibrium z* solves (1/N) Σ_i F_i(z*) = M̄ z* + m̄ = 0. M̄'s symmetric part
// is diag(Ā, C̄) ≽ 0, so z* exists and is unique iff M̄ is nonsingular (e.g. Ā ≻ 0 and C̄ ≻ 0,
// or the bilinear game A = C = 0 with B̄ square and nonsingular).
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct QuadraticGameClient {
  Matrix a;          // A_i, p × p, symmetric positive semi-definite
  Matrix b;          // B_i, p × q
  Matrix c;          // C_i, q × q, symmetric positive semi-definite
  Vector a_linear;   // a_i, length p
  Vector c_linear;   // c_i, length q
  Matrix noise_cov;  // S_i, (p + q) × (p + q), symmetric positive semi-definite
};

class QuadraticGame {
 public:
  // Validates shapes, symmetry, semi-definiteness and finiteness (InputError naming the field,
  // e.g. "clients[1].C: not positive semi-definite (smallest eigenvalue -0.5)") and that the
  // federated game has a unique equilibrium ("clients: the averaged game has no unique
  // equilibrium (M̄ is singular …)").
  explicit QuadraticGame(std::vector<QuadraticGameClient> clients);

  int theta_dim() const { return p_; }
  int tau_dim() const { return q_; }
  int dim() const { return p_ + q_; }
  int num_clients() const { return static_cast<int>(clients_.size()); }
  const QuadraticGameClient& client(int i) const { return clients_[i]; }

  // M_i and m_i of the client operator F_i(z) = M_i z + m_i.
  Matrix operator_matrix(int client) const;
  Vector operator_offset(int client) const;
  // F_i(z).
  Vector client_operator(int client, const Vector& z) const;
  // z* with M̄ z* + m̄ = 0.
  const Vector& equilibrium() const { return equilibrium_; }

 private:
  std::vector<QuadraticGameClient> clients_;
  int p_ = 0, q_ = 0;
  Vector equilibrium_;
};

}  // namespace fedverify::theory
