// FedDyn's own parameter (docs/THEORY-FedDyn.md (FD0)), declared once for the closed forms
// (theory/algorithms/feddyn.cpp, which registers it with the algorithm) and the sampler
// (estimators/samplers/algorithms/feddyn.cpp, which reads it): the weight α > 0 of the dynamic
// regulariser (α/2)‖y − x‖² of Acar et al. (2021). Its key is "dyn_alpha" (--dyn-alpha), not
// "alpha": `problem from-csv` already has --alpha (the Dirichlet concentration) and claim files
// have a decision "alpha" (the test level).
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kDynAlphaKey = "dyn_alpha";

inline AlgorithmParameter dyn_alpha_parameter() {
  return {.key = kDynAlphaKey,
          .meaning = "FedDyn's regulariser weight alpha",
          .theory_label = "FD0",
          .min = 0,
          .open_min = true,
          .required = true};
}

// α of a FedDyn setting.                                                    THEORY-FedDyn (FD0)
inline double feddyn_alpha(const RunSetting& setting) {
  return parameter_value(setting, kDynAlphaKey);
}

}  // namespace fedverify::theory
