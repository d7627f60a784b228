// The DeepGMM game (THEORY M6; thesis (3.14), (3.20); [DeepGMM] §4): for a client with samples
// (Z_k, X_k, Y_k), k = 1..n, networks g(x; θ), f(z; τ) (mlp.hpp) and a reference θ̃,
//
//   U_θ̃(θ, τ) = (1/n) Σ_k f(Z_k; τ)(Y_k − g(X_k; θ)) − λ (1/n) Σ_k f(Z_k; τ)² (Y_k − g(X_k; θ̃))²,
//
// λ = ¼ in (3.14). (The thesis prints the residual of the penalty at θ; [DeepGMM]'s weighted norm
// (3.10)–(3.11) and the authors' code hold it at θ̃: the penalty enters f's objective only, g's
// gradient is that of the moment term. So ∇_θ U below is taken with θ̃ held fixed.) The
// federated game (3.20) averages the clients' U^i with equal weights 1/N.
//
// θ̃ in training ([DeepGMM]'s code, OptimalMomentObjective): the current iterate, i.e. θ̃ = θ at
// every evaluation of the gradients, held fixed in the θ-derivative (gradients() below).
#pragma once

#include "theory/problems/mlp.hpp"

namespace fedverify::theory {

// A batch of samples, one column per sample.
struct IvBatch {
  Matrix z;     // instruments, d_z × B
  Matrix x;     // treatments, d_x × B (1, or 64 for an image treatment: iv_images.hpp)
  RowVector y;  // outcomes, 1 × B
  Eigen::Index size() const { return y.size(); }
};

struct DeepGmmGame {
  Mlp g;                  // g(x; θ)
  Mlp f;                  // f(z; τ)
  double penalty = 0.25;  // λ of the quadratic term; ¼ in (3.14) (Lemma 1's ¼ C_θ̃(f, f))

  // U_θ̃(θ, τ) on the batch (means over its samples).
  double value(const Vector& theta, const Vector& tau, const Vector& theta_tilde,
               const IvBatch& batch) const;

  // ∇_θ U and ∇_τ U at (θ, τ) with θ̃ = θ held fixed (the training rule above), on the batch.
  // Overwrites grad_theta and grad_tau.
  void gradients(const Vector& theta, const Vector& tau, const IvBatch& batch, Vector& grad_theta,
                 Vector& grad_tau) const;
};

// The federated game (3.20): (1/N) Σ_i U^i_θ̃(θ, τ), client i's samples in batches[i].
double federated_value(const DeepGmmGame& game, const Vector& theta, const Vector& tau,
                       const Vector& theta_tilde, const std::vector<IvBatch>& batches);

}  // namespace fedverify::theory
