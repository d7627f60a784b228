// The parameters of the game family (THEORY M0: fedgda, fedsgda), declared once for the two
// descriptors (theory/algorithms/fedgda.cpp) and read by the family's runner
// (reports/runs/game_runner.cpp): the step ratio α₂/α₁ (--step-ratio; --gamma is α₁) and
// FedSGDA's minibatch size (--batch-size).
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kStepRatioKey = "step_ratio";
inline constexpr std::string_view kBatchSizeKey = "batch_size";

inline AlgorithmParameter step_ratio_parameter() {
  return {.key = kStepRatioKey,
          .meaning = "Ascent step over descent step alpha_tau/alpha_theta (--gamma is alpha_theta)",
          .theory_label = "M0",
          .min = 0,
          .open_min = true,
          .default_value = {1.0}};
}

inline AlgorithmParameter batch_size_parameter() {
  return {.key = kBatchSizeKey,
          .meaning = "Minibatch size B of each local step",
          .theory_label = "M0",
          .min = 1,
          .max = static_cast<double>(limits::kMaxBatchSize),
          .integer = true,
          .required = true};
}

}  // namespace fedverify::theory
