// Mime with SGD-momentum as the base optimiser (docs/THEORY-Mime.md (MI0); Karimireddy et al.
// 2021, Algorithm 1, full participation, client weights p_c, server step 1). The server keeps the
// momentum m (an auxiliary per-chain state, 0 at t = 0); a round is
//
//   c = Σ_c p_c ∇f_c(x_t)                     (full-batch gradients at x_t:
//   LocalSampler::mean_gradient) y_c ← x_t;  y_c ← y_c − γ((1 − β)(g_c(y_c; ζ) − g_c(x_t; ζ) + c) +
//   βm)   (H times, one ζ for both) m ← (1 − β)c + βm,   x_{t+1} = Σ_c p_c y_c. (MI0)
//
// The clients' constant term (1 − β)c + βm is the new momentum, so the round updates m first and
// passes it as the correction of LocalSampler::control_variate_local_steps (scale 1 − β, anchor
// x_t). The Variant policy lets a test plant MimeLite — the clients' step (1 − β)g_c(y; ζ) + βm
// on the raw stochastic gradient, no control variate — without a switch in the shipped
// MimeRound<StandardMime> (registered as "mime").
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "estimators/samplers/round.hpp"
#include "theory/problems/mime_setting.hpp"

namespace fedverify::estimators {

// The Mime of (MI0).
struct StandardMime {
  static constexpr bool kControlVariate = true;
};

template <class Variant = StandardMime>
class MimeRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const double beta = theory::mime_beta(b.step);
    const std::size_t size = b.size();
    double* m = b.auxiliary[0];
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* correction = b.scratch.buffer(RoundScratch::kCorrection, size);
    double* c = b.scratch.buffer(RoundScratch::kFirstFree, size);           // Σ_c p_c ∇f_c(x_t)
    double* client = b.scratch.buffer(RoundScratch::kFirstFree + 1, size);  // one ∇f_c(x_t)
    double* total = b.scratch.buffer(RoundScratch::kFirstFree + 2, size);   // Σ_c p_c y_c
    std::fill(c, c + size, 0.0);
    std::fill(total, total + size, 0.0);
    for (int k = 0; k < b.clients; ++k) {
      b.sampler.mean_gradient(k, b.x, client);
      const double p = weight(b, k);
      for (std::size_t j = 0; j < size; ++j) c[j] += p * client[j];
    }
    if constexpr (Variant::kControlVariate) {
      for (std::size_t j = 0; j < size; ++j) m[j] = (1 - beta) * c[j] + beta * m[j];  // m'
    } else {
      // MimeLite: y ← y − γ(1 − β)(g + βm/(1 − β)), m the round's old momentum.
      for (std::size_t j = 0; j < size; ++j) correction[j] = beta * m[j] / (1 - beta);
    }
    BatchAddress address = b.address;
    for (int k = 0; k < b.clients; ++k) {
      address.client = static_cast<std::uint32_t>(k);
      std::copy(b.x, b.x + size, y);
      if constexpr (Variant::kControlVariate) {
        b.sampler.control_variate_local_steps(k, address, b.active, b.gamma, b.local_steps,
                                              1 - beta, b.x, m, y, b.kernel);
      } else {
        b.sampler.local_steps(k, address, b.active, b.gamma * (1 - beta), b.local_steps, y,
                              correction, b.kernel);
      }
      const double p = weight(b, k);
      for (std::size_t j = 0; j < size; ++j) total[j] += p * y[j];
    }
    if constexpr (!Variant::kControlVariate) {
      for (std::size_t j = 0; j < size; ++j) m[j] = (1 - beta) * c[j] + beta * m[j];
    }
    std::copy(total, total + size, b.x);  // x_{t+1} = Σ_c p_c y_c                (MI0)
  }

  // The server momentum m (it follows x; the iterate is checked for divergence).
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& /*options*/,
                                               int /*clients*/) const override {
    return {{"Mime server momentum m", false}};
  }

  // (x, m): the order of theory::mime_exact_state.
  Matrix stacked_state(const Matrix& x, const std::vector<Matrix>& auxiliary) const override {
    return stack_below(x, auxiliary);
  }

 private:
  static double weight(const RoundBlock& b, int client) {
    return b.weights == nullptr ? 1.0 / b.clients : b.weights[client];
  }
};

}  // namespace fedverify::estimators
