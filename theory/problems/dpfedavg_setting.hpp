// DP-FedAvg's own parameters (THEORY (A5)), declared once for the closed forms
// (theory/algorithms/dpfedavg.cpp, which registers them with the algorithm) and the sampler
// (estimators/samplers/algorithms/dpfedavg.cpp, which reads them): the standard deviation σ_dp of
// the Gaussian noise the server adds to every coordinate of x_{t+1} (--dp-noise; McMahan et al.'s
// z·S, the noise multiplier times the clipping norm), and the clipping norm S of every client
// update y_c − x_t (--clip; absent: no clipping, the chain is linear and its law exact).
#pragma once

#include <optional>
#include <string_view>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kDpNoiseKey = "dp_noise";
inline constexpr std::string_view kClipKey = "clip";

inline AlgorithmParameter dp_noise_parameter() {
  return {.key = kDpNoiseKey,
          .meaning = "Standard deviation σ_dp of the server's Gaussian noise per coordinate",
          .theory_label = "A5",
          .min = 0,
          .default_value = {0.0}};
}

inline AlgorithmParameter clip_parameter() {
  return {.key = kClipKey,
          .meaning = "Clipping norm S of each client update (absent: no clipping)",
          .theory_label = "A5",
          .min = 0,
          .open_min = true};
}

// σ_dp of `setting` (the front ends fill in the default 0).
inline double dp_noise(const RunSetting& setting) { return parameter_value(setting, kDpNoiseKey); }

// S of `setting`, or nothing (no clipping).
inline std::optional<double> clip_norm(const RunSetting& setting) {
  return optional_parameter_value(setting, kClipKey);
}

}  // namespace fedverify::theory
