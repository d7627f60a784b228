// Burn-in from the contraction rate.
//
// By THEORY (F1), W2(law(x_t), π) ≤ ρ^t · W2(law(x_0), π) with ρ = (1 − γμ)^H per round (the
// caller computes ρ from the theory, e.g. theory::fedavg_contraction_factor for quadratics).
// Since ‖E x_t − E_π x‖ ≤ W2(law(x_t), π), the bias left in a stationary mean after B rounds is
// at most ρ^B · D₀, D₀ = W2(law(x_0), π) (for a point start x_0: D₀ ≤ ‖x_0 − m‖ + √tr Σ).
//
// Rule: B = the least t ≥ 0 with ρ^t · D₀ ≤ fraction · scale, i.e.
//     B = ⌈ log(fraction · scale / D₀) / log ρ ⌉   (0 when D₀ ≤ fraction · scale),
// where `scale` is the stationary spread (e.g. √tr Σ_π). For a mean estimated from n_eff
// effective samples the MCSE is ≈ scale/√n_eff, so fraction ≪ 1/√n_eff makes the burn-in
// bias negligible against the statistical error; burn_in_fraction_for() gives that choice.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

struct BurnInRule {
  double contraction;       // ρ ∈ (0, 1): per-round W2 contraction factor (THEORY F1)
  double initial_distance;  // D₀ ≥ 0: W2 between the initial law and the stationary law
  double scale;             // > 0: stationary spread, e.g. √tr Σ_π
  double fraction = 0.01;   // ∈ (0, 1]: target bias as a fraction of `scale`
};

// Rounds B such that ρ^B · D₀ ≤ fraction · scale. Throws InputError naming the bad field.
inline int burn_in_rounds(const BurnInRule& rule) {
  if (!(rule.contraction > 0.0 && rule.contraction < 1.0)) {
    throw InputError("contraction: must lie in (0, 1), got " + std::to_string(rule.contraction));
  }
  if (!(rule.initial_distance >= 0.0) || !std::isfinite(rule.initial_distance)) {
    throw InputError("initial_distance: must be finite and ≥ 0, got " +
                     std::to_string(rule.initial_distance));
  }
  if (!(rule.scale > 0.0) || !std::isfinite(rule.scale)) {
    throw InputError("scale: must be finite and > 0, got " + std::to_string(rule.scale));
  }
  if (!(rule.fraction > 0.0 && rule.fraction <= 1.0)) {
    throw InputError("fraction: must lie in (0, 1], got " + std::to_string(rule.fraction));
  }
  const double target = rule.fraction * rule.scale;
  if (rule.initial_distance <= target) return 0;
  const double rounds =
      std::ceil(std::log(target / rule.initial_distance) / std::log(rule.contraction));
  if (rounds > static_cast<double>(std::numeric_limits<int>::max())) {
    throw InputError("contraction: too close to 1 for a finite burn-in (" +
                     std::to_string(rule.contraction) + ")");
  }
  return static_cast<int>(rounds);
}

// fraction = safety / √n_eff: the burn-in bias is then ≤ safety × the MCSE of a mean estimated
// from n_eff effective samples (default safety 0.1: a 10 % shift of a z-statistic at most).
inline double burn_in_fraction_for(double effective_samples, double safety = 0.1) {
  if (!(effective_samples >= 1.0)) {
    throw InputError("effective_samples: must be ≥ 1, got " + std::to_string(effective_samples));
  }
  return std::min(1.0, safety / std::sqrt(effective_samples));
}

}  // namespace fedverify::estimators
