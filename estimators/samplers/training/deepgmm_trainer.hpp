// DeepGMM-GDA/SGDA and FedDeepGMM-GDA/SGDA (THEORY M0, M6; thesis Algorithm 1, (3.14), (3.20)):
// simultaneous gradient descent–ascent on the DeepGMM game (theory/problems/deepgmm_game.hpp),
// θ ← θ − α₁ ∇_θ U, τ ← τ + α₂ ∇_τ U, both gradients at the same point, θ̃ = θ (the current
// iterate, as [DeepGMM]'s code).
//
//   centralised: one client holding every training sample; a round is one step.
//   federated:   every client i starts the round at (θ_t, τ_t) and runs R local steps on its own
//                samples; the server averages the end points with equal weights 1/N (Algorithm
//                1, lines 9–12; (3.20) weighs clients equally). With R = 1 and full batches a
//                round is one GDA step on (3.20).
//   GDA:  full-batch gradients (every sample of the client).
//   SGDA: minibatches of `batch` samples drawn uniformly with replacement from the client's.
//   rule: each player's gradient handed to an update rule (estimators/samplers/optimisers, e.g.
//         "oadam": [DeepGMM]'s DeepGMM-OAdam) instead of a plain step, θ descending ∇_θ U and τ
//         descending −∇_τ U with their own state and step α₁, α₂; centralised runs only.
//
// Randomness (theory/base/rng.hpp): θ₀ then τ₀ from Stream(seed, initial_state) (PyTorch's
// default initialisation, mlp.hpp); the minibatch columns of client c in round t from
// Stream(seed, gradient_noise, 0, c, t), step by step. A run is sequential inside and a pure
// function of (game, data, options): callers parallelise over independent runs, so results are
// bit-identical whatever the number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/deepgmm_game.hpp"

namespace fedverify::estimators {

struct DeepGmmTrainOptions {
  bool federated = false;
  bool stochastic = false;  // SGDA (minibatches) rather than GDA (full batches)
  int rounds = 1000;        // T
  int local_steps = 1;      // R (federated; centralised runs use 1)
  double alpha_theta = 0.01;
  double alpha_tau = 0.01;
  int batch = 256;
  std::uint64_t seed = 1;
  std::string rule;  // "": plain steps; else an update rule's spec text (e.g. "oadam")
};

struct DeepGmmTrainResult {
  Vector theta, tau;
  bool diverged = false;  // a non-finite parameter appeared (the run stops at that round)
  int rounds_run = 0;
};

// `clients`: the samples of each client (a centralised run takes exactly one batch, every
// training sample). Throws InputError naming the field for rounds,
// local_steps or batch < 1, a step not finite and > 0, no clients, an empty client, a
// centralised run given more than one batch, or a rule on a federated run or without an update
// rule of that name.
DeepGmmTrainResult train_deepgmm(const theory::DeepGmmGame& game,
                                 const std::vector<theory::IvBatch>& clients,
                                 const DeepGmmTrainOptions& options);

// Mean squared error (1/n) Σ_k (g(X_k; θ) − g₀(X_k))² on a sample's x and g₀ (same scale).
double function_mse(const theory::Mlp& g, const Vector& theta, const Matrix& x,
                    const theory::RowVector& g0);

}  // namespace fedverify::estimators
