// FedPer's round (docs/THEORY.md (A7); Arivazhagan et al. 2019, full participation, client
// weights p_c): the last k = --personal-dims coordinates are personal. Each client keeps v_c (an
// auxiliary per-chain state, d × K, its last k rows used, 0 at t = 0), and
//
//   y_c ← (w_t, v_c);  y_c ← y_c − γ g_c(y_c)  (H times, FedAvg's local steps and noise draws);
//   v_c ← the last k coordinates of y_c;  w_{t+1} = Σ_c p_c (first d − k coordinates of y_c),
//
// and the chain's x is (w, Σ_c p_c v_c). The Variant policy lets a test plant a server that
// averages the personal coordinates too and sends the average back (FedAvg's round, the personal
// layers lost) without a switch in the shipped FedperRound<StandardFedper> ("fedper").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "estimators/samplers/round.hpp"
#include "theory/problems/fedper_setting.hpp"

namespace fedverify::estimators {

// The FedPer of (A7).
struct StandardFedper {
  static constexpr bool kKeepsPersonal = true;
};

template <class Variant = StandardFedper>
class FedperRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const int k = theory::fedper_personal_dims(b.step, b.dim);
    const std::size_t size = b.size();
    const std::size_t shared = static_cast<std::size_t>(b.dim - k) * kLanes;  // rows 0 … d − k − 1
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c p_c y_c
    std::fill(total, total + size, 0.0);
    BatchAddress address = b.address;
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      double* v = b.auxiliary[c];
      std::copy(b.x, b.x + shared, y);  // (w_t, v_c)
      if constexpr (Variant::kKeepsPersonal) {
        std::copy(v + shared, v + size, y + shared);
      } else {
        std::copy(b.x + shared, b.x + size, y + shared);
      }
      b.sampler.local_steps(c, address, b.active, b.gamma, b.local_steps, y, nullptr, b.kernel);
      const double p = b.weights == nullptr ? 1.0 / b.clients : b.weights[c];
      for (std::size_t j = 0; j < size; ++j) total[j] += p * y[j];
      std::copy(y + shared, y + size, v + shared);  // v_c ← y_personal
    }
    std::copy(total, total + size, b.x);  // x = (Σ_c p_c w_c, Σ_c p_c v_c)     (A7)
  }

  // v_1 … v_N (they follow x; the iterate is checked for divergence).
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& /*options*/,
                                               int clients) const override {
    return std::vector<AuxiliaryState>(static_cast<std::size_t>(clients),
                                       {"FedPer personal coordinates v_c", false});
  }

  // (x, (0, v_1), …, (0, v_N)): the order of theory::fedper_exact_state.
  Matrix stacked_state(const Matrix& x, const std::vector<Matrix>& auxiliary) const override {
    return stack_below(x, auxiliary);
  }
};

}  // namespace fedverify::estimators
