// The parameters of the personalised family (THEORY §7: l2gd, l2sgd, l2sgd+), declared once for
// the three descriptors (theory/algorithms/l2gd.cpp) and read by the family's runner
// (reports/runs/personalised_runner.cpp): λ (--lambda, required) and p (--p, absent unless given:
// the run then takes p* = λ/(λ + L), which depends on the problem).
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kLambdaKey = "lambda";
inline constexpr std::string_view kAveragingProbabilityKey = "p";

inline AlgorithmParameter lambda_parameter() {
  return {.key = kLambdaKey,
          .meaning = "Personalisation strength lambda",
          .theory_label = "P1",
          .min = 0,
          .open_min = true,
          .required = true};
}

inline AlgorithmParameter averaging_probability_parameter() {
  return {.key = kAveragingProbabilityKey,
          .meaning = "Probability of an averaging step, default p* = lambda/(lambda + L)",
          .theory_label = "P2",
          .min = 0,
          .max = 1,
          .open_min = true,
          .open_max = true};
}

}  // namespace fedverify::theory
