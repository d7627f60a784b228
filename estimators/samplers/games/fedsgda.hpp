// The FedSGDA sampler on linear instrumental-variable games (THEORY M0, M5): K independent chains
// of FedGDA whose gradients are minibatch estimates. Each local step of client i draws B sample
// indices k_1..k_B uniformly with replacement from its n_i samples and steps with the gradients
// of the minibatch objective U_b(θ, τ) = τᵀ(b_b − G_bθ) − ¼τᵀW_bτ (G_b, b_b, W_b: the averages of
// the per-sample pieces of theory/problems/linear_iv.hpp over the minibatch):
//   s_k = ψ_kᵀτ,  r_k = y_k − φ_kᵀθ,
//   θ ← θ − α₁ · (1/B) Σ_k (−φ_k s_k),   τ ← τ + α₂ · (1/B) Σ_k ψ_k (r_k − ½ w_k s_k),
// simultaneously (both from the step's starting point), O(B(p + q)) per step. The server averages
// the clients' end points. Chain k, client i, round t draws its R·B indices from the stream
// (seed, gradient_noise, k, i, t), so a chain's path depends on neither K nor the threads.
// With B = n_i and the indices 0..n_i − 1 it would be FedGDA on the full-batch game (game()).
#pragma once

#include <cstdint>
#include <functional>

#include "theory/base/linalg.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/linear_iv.hpp"

namespace fedverify::estimators {

struct FedsgdaChains {
  const theory::LinearIvGame& data;
  theory::GdaSetting step;
  int batch_size = 1;  // B ≥ 1
  std::uint64_t seed = 0;
  int threads = 0;  // 0: all; never changes a number
};

// Advances the chains (the columns of `state`, (p + q) × K) by `rounds` rounds, calling
// record(round, state) after each (round counted from 1), in the calling thread, in order.
// Returns the round (≥ 1) after which a chain first left double range, or 0 when none did (the
// chains are then left as they were after that round and record is not called again).
int run_fedsgda(const FedsgdaChains& chains, Matrix& state, int rounds,
                const std::function<void(int, const Matrix&)>& record);

}  // namespace fedverify::estimators
