// FedNova's own parameter (THEORY A2), declared once for the closed forms
// (theory/algorithms/fednova.cpp, which registers it with the algorithm) and the sampler
// (estimators/samplers/algorithms/fednova.cpp, which reads it): the local steps H_c of each
// client, --client-steps 1,2,4 on the command line, "client_steps" in claim files and Python.
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kClientStepsKey = "client_steps";

// How the server combines the clients' updates after unequal local steps H_c (THEORY (A2)):
// FedNova's normalised average (w_c = H̄/H_c), or FedAvg's plain one (w_c = 1: FedAvg run with
// per-client steps, the "objective inconsistency" FedNova removes).
enum class UnequalStepsAggregation { normalised, plain };

inline AlgorithmParameter client_steps_parameter() {
  return {.key = kClientStepsKey,
          .meaning = "Local steps H_c of each client",
          .theory_label = "A2",
          .min = 1,
          .max = static_cast<double>(limits::kMaxLocalStepsSimulate),
          .integer = true,
          .per_client = true,
          .required = true};
}

}  // namespace fedverify::theory
