// FedDyn (docs/THEORY-FedDyn.md (FD0); Acar et al., ICLR 2021, Algorithm 1, full participation):
// each client keeps its linear correction h_c (an auxiliary per-chain state, 0 at t = 0), and
//
//   y_c ← x_t;  y_c ← y_c − γ(g_c(y_c) − h_c + α(y_c − x_t))  (H times),
//   h_c ← h_c − α(y_c − x_t),
//   x_{t+1} = (1/N) Σ_c y_c − h̄/α,   h̄ = (1/N) Σ_c h_c (the updated ones).      (FD0)
//
// The local step is the kernel's proximal step y ← y − γ(g(y) + α(y − a_c)) with the anchor
// a_c = x_t + h_c/α (the same noise draws as FedAvg's local steps). The server's −h̄/α term is the
// static member of a Variant policy, so a test can plant its omission (FeddynRound<Variant>)
// without a switch in the shipped FeddynRound<StandardFeddyn> (registered as "feddyn").
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/problems/feddyn_setting.hpp"

namespace fedverify::estimators {

// The FedDyn of (FD0).
struct StandardFeddyn {
  // The server's correction subtracted from the average of the y_c: h̄/α.       (FD0)
  static double server_correction(double mean_h, double alpha) { return mean_h / alpha; }
};

template <class Variant = StandardFeddyn>
class FeddynRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const double alpha = theory::feddyn_alpha(b.step);
    const std::size_t size = b.size();
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* anchor = b.scratch.buffer(RoundScratch::kCorrection, size);
    double* total_y = b.scratch.buffer(RoundScratch::kFirstFree, size);      // Σ_c y_c
    double* total_h = b.scratch.buffer(RoundScratch::kFirstFree + 1, size);  // Σ_c h_c (new)
    std::fill(total_y, total_y + size, 0.0);
    std::fill(total_h, total_h + size, 0.0);
    BatchAddress address = b.address;
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      double* h = b.auxiliary[c];
      for (std::size_t j = 0; j < size; ++j) anchor[j] = b.x[j] + h[j] / alpha;  // a_c
      std::copy(b.x, b.x + size, y);
      b.sampler.proximal_local_steps(c, address, b.active, b.gamma, b.local_steps, alpha, anchor, y,
                                     b.kernel);
      for (std::size_t j = 0; j < size; ++j) {
        h[j] -= alpha * (y[j] - b.x[j]);  // (FD0): h_c ← h_c − α(y_c − x_t)
        total_y[j] += y[j];
        total_h[j] += h[j];
      }
    }
    const double n = b.clients;
    for (std::size_t j = 0; j < size; ++j) {  // (FD0): x_{t+1} = ȳ − h̄/α
      b.x[j] = total_y[j] / n - Variant::server_correction(total_h[j] / n, alpha);
    }
  }

  // h_1 … h_N (they follow x; the iterate is checked for divergence).
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& /*options*/,
                                               int clients) const override {
    return std::vector<AuxiliaryState>(static_cast<std::size_t>(clients),
                                       {"FedDyn client correction h_c", false});
  }

  // (x, h_1, …, h_N): the order of theory::feddyn_exact_state.
  Matrix stacked_state(const Matrix& x, const std::vector<Matrix>& auxiliary) const override {
    return stack_below(x, auxiliary);
  }
};

}  // namespace fedverify::estimators
