// Scaffold's own parameter (THEORY S9), declared once for the closed forms
// (theory/algorithms/scaffold.cpp, which registers it with the algorithm), the sampler
// (estimators/samplers/algorithms/scaffold.hpp) and conformance: the server's global step η_g of
// Karimireddy et al. (2020), x ← x + η_g · mean_c(y_c − x), --server-lr on the command line,
// "server_lr" in claim files and Python (the key FedAdam's and FedAvgM's presets give their
// server step). Not given: η_g = 1, the Scaffold of THEORY (S0).
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kServerLrKey = "server_lr";

inline AlgorithmParameter scaffold_server_lr_parameter() {
  // The same words as the server optimisers' lr key, so that --help reads alike for every
  // algorithm that takes --server-lr. No declared default: the presets have their own.
  return {.key = kServerLrKey,
          .meaning = "server step eta_g",
          .theory_label = "S9",
          .min = 0,
          .open_min = true};
}

// η_g of a Scaffold setting: the declared value, or 1 when not given.               THEORY (S9)
inline double scaffold_server_lr(const RunSetting& setting) {
  return optional_parameter_value(setting, kServerLrKey).value_or(1.0);
}

}  // namespace fedverify::theory
