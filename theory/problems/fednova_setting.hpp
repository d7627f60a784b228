// FedNova's own parameter (THEORY A2), declared once for the closed forms
// (theory/algorithms/fednova.cpp, which registers it with the algorithm) and the sampler
// (estimators/samplers/algorithms/fednova.cpp, which reads it): the local steps H_c of each
// client, --client-steps 1,2,4 on the command line, "client_steps" in claim files and Python.
#pragma once

#include <string_view>

#include "theory/problems/algorithm.hpp"
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

// Random local steps (THEORY (A2c)): with --random-steps 1, each round client c draws its H_c
// uniformly from {1, …, K_c}, K_c its --client-steps value, independently of the other clients,
// chains and rounds (the client-sampling streams, Purpose::client_sampling, client index c).
// Absent or 0: the steps are fixed.
inline constexpr std::string_view kRandomStepsKey = "random_steps";

inline AlgorithmParameter random_steps_parameter() {
  return {.key = kRandomStepsKey,
          .meaning = "1: each round client c draws H_c uniformly from 1 … its --client-steps value",
          .theory_label = "A2c",
          .min = 0,
          .max = 1,
          .integer = true};
}

inline bool random_steps(const RunSetting& setting) {
  return optional_parameter_value(setting, kRandomStepsKey).value_or(0.0) != 0.0;
}

}  // namespace fedverify::theory
