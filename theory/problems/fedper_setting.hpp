// FedPer's own parameter (docs/THEORY.md (A7)), declared once for the closed forms
// (theory/algorithms/fedper.cpp, which registers it with the algorithm) and the sampler
// (estimators/samplers/algorithms/fedper.cpp, which reads it): the number k of personal
// coordinates — the last k of the model, the "personalised layers" of Arivazhagan et al. (2019),
// which each client keeps; the first d − k (the "base layers") are averaged as FedAvg's.
#pragma once

#include <string>
#include <string_view>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kPersonalDimsKey = "personal_dims";

inline AlgorithmParameter personal_dims_parameter() {
  return {.key = kPersonalDimsKey,
          .meaning = "FedPer's personal coordinates k: the last k of the model, kept per client",
          .theory_label = "A7",
          .min = 1,
          .max = static_cast<double>(limits::kMaxDimension),
          .integer = true,
          .required = true};
}

// k of a FedPer setting on a problem of dimension `dim`; InputError naming --personal-dims unless
// 1 ≤ k < dim (at least one shared coordinate).                                   THEORY (A7)
inline int fedper_personal_dims(const RunSetting& setting, int dim) {
  const int k = static_cast<int>(parameter_value(setting, kPersonalDimsKey));
  if (k >= dim) {
    throw InputError("--personal-dims: " + std::to_string(k) +
                     " personal coordinates leave none shared on a problem of dimension " +
                     std::to_string(dim) + " (need k < d)");
  }
  return k;
}

}  // namespace fedverify::theory
