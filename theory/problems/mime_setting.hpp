// Mime's own parameter (docs/THEORY-Mime.md (MI0)), declared once for the closed forms
// (theory/algorithms/mime.cpp, which registers it with the algorithm) and the sampler
// (estimators/samplers/algorithms/mime.cpp, which reads it): the momentum β ∈ [0, 1) of the base
// optimiser SGD with momentum, m ← (1 − β)g + βm (Karimireddy et al. 2021's convention; optax's
// trace m ← g + βm is the same method with the step η(1 − β) and m/(1 − β)). Its key is
// "mime_beta" (--mime-beta), not "momentum": the presets FedAvgM and FedOpt already own
// --momentum, the server optimiser's.
#pragma once

#include <string_view>

#include "theory/problems/algorithm_parameter.hpp"

namespace fedverify::theory {

inline constexpr std::string_view kMimeBetaKey = "mime_beta";

inline AlgorithmParameter mime_beta_parameter() {
  return {.key = kMimeBetaKey,
          .meaning = "Mime's momentum beta of the base optimiser (server state, frozen on clients)",
          .theory_label = "MI0",
          .min = 0,
          .max = 1,
          .open_max = true,
          .default_value = {0.9}};
}

// β of a Mime setting.                                                       THEORY-Mime (MI0)
inline double mime_beta(const RunSetting& setting) {
  return parameter_value(setting, kMimeBetaKey);
}

}  // namespace fedverify::theory
