// The setting of FedGDA (THEORY M0), for both sides: its closed forms (theory/algorithms/fedgda.*)
// and its sampler (estimators/samplers/games/fedgda.*).
#pragma once

namespace fedverify::theory {

struct GdaSetting {
  double alpha_theta = 0;  // α₁ > 0, the descent step on θ
  double alpha_tau = 0;    // α₂ > 0, the ascent step on τ
  int local_steps = 1;     // R ≥ 1
};

// Throws InputError naming the field: α₁ ("--alpha-theta"), α₂ ("--alpha-tau") not finite and
// > 0, R ("--local-steps") < 1.
void validate(const GdaSetting& setting);

}  // namespace fedverify::theory
