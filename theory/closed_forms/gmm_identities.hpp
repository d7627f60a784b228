// The GMM identities on finite function classes (THEORY M4): Lemma 1 of [DeepGMM] and the three
// federated candidates of [Thesis] Lemma 2.
//
// A client holds n samples; the function class is F = span{f_1, …, f_m}, f = Σ_j τ_j f_j. With
// the basis evaluated on the client's instruments (Φ, n × m, Φ_kj = f_j(Z_k)), the residuals
// r_k = Y_k − g(X_k; θ) and r̃_k = Y_k − g(X_k; θ̃),
//   ψ = Φᵀr / n                       (3.6): the moments ψ_n(f_j; θ),
//   C = Φᵀ diag(r̃²) Φ / n             (3.10): C_θ̃,
//   ψ_n(f; θ) − ¼ C_θ̃(f, f) = τᵀψ − ¼ τᵀCτ                                 (3.12), (3.14)
// and Lemma 1: sup_τ τᵀψ − ¼ τᵀCτ = ψᵀC⁻¹ψ, attained at τ = 2C⁻¹ψ (C ≻ 0).
// With N clients (moments ψ_i, C_i; ψ̄, C̄ their plain averages, (3.17)):
//   (a) per-client f^i (the sup of (3.19), one τ_i per client):  (1/N) Σ_i ψ_iᵀC_i⁻¹ψ_i;
//   (b) one shared f (the game (3.20), one τ for all clients):      ψ̄ᵀC̄⁻¹ψ̄;
//   (c) (3.18) as printed, ‖ψ̄‖²_θ̃ = ψ̄ᵀ W⁻¹ ψ̄ with the weight W of "the previously defined
//       weighted norm" (the printed definition is garbled); the readings: W = C̄ (the clients'
//       covariances averaged as the moments are) or W = the pooled covariance of all samples
//       (Σ_i n_i C_i / Σ_i n_i).
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// The ¼ of (3.12) and (3.14).
inline constexpr double kGmmPenalty = 0.25;

struct GmmClientData {
  Matrix basis;           // Φ, n × m: f_j(Z_k)
  Vector residual;        // r_k = Y_k − g(X_k; θ)
  Vector residual_tilde;  // r̃_k = Y_k − g(X_k; θ̃)
};

struct GmmMoments {
  Vector psi;  // ψ, length m
  Matrix cov;  // C_θ̃, m × m
  int samples = 0;
};

// ψ and C_θ̃ of one client (3.6), (3.10).
GmmMoments gmm_moments(const GmmClientData& data);

// The objective of Lemma 1 at f = Σ_j τ_j f_j: τᵀψ − ¼ τᵀCτ.
double gmm_penalised_moment(const GmmMoments& moments, const Vector& tau);

// Lemma 1: the supremum ψᵀC⁻¹ψ and where it is attained, 2C⁻¹ψ.
struct GmmSupremum {
  double value = 0;
  Vector argmax;
};
GmmSupremum gmm_lemma1(const GmmMoments& moments);

// The plain averages ψ̄, C̄ of (3.17) and the pooled covariance Σ_i n_i C_i / Σ_i n_i.
GmmMoments averaged_moments(const std::vector<GmmMoments>& clients);
Matrix pooled_covariance(const std::vector<GmmMoments>& clients);

// The candidates of Lemma 2 (THEORY M4).
double gmm_per_client_supremum(const std::vector<GmmMoments>& clients);  // (a)
double gmm_shared_supremum(const std::vector<GmmMoments>& clients);      // (b)
// (c): ψ̄ᵀW⁻¹ψ̄ for a weight W.
double gmm_weighted_norm(const Vector& psi, const Matrix& weight);

}  // namespace fedverify::theory
