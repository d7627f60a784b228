// The setting of FedGDA (THEORY M0), for both sides: its closed forms (theory/algorithms/fedgda.*)
// and its sampler (estimators/samplers/games/fedgda.*).
#pragma once

namespace fedverify::theory {

struct RunSetting;

struct GdaSetting {
  double alpha_theta = 0;  // α₁ > 0, the descent step on θ
  double alpha_tau = 0;    // α₂ > 0, the ascent step on τ
  int local_steps = 1;     // R ≥ 1
};

// Throws InputError naming the field: α₁ ("--alpha-theta"), α₂ ("--alpha-tau") not finite and
// > 0, R ("--local-steps") < 1.
void validate(const GdaSetting& setting);

// The game family's view of a run's setting: α₁ = --gamma, α₂ = α₁ · --step-ratio, R =
// --local-steps. Throws InputError naming --step-ratio when the ratio is not finite and > 0, and
// as validate.
GdaSetting gda_setting(double gamma, double step_ratio, int local_steps);

// The same from the one run setting (algorithm.hpp), resolved for fedgda or fedsgda: γ, H and the
// declared step ratio (gda_parameters.hpp). std::logic_error when the setting lacks the ratio (it
// was not resolved for a game algorithm: a programming error).
GdaSetting gda_setting(const RunSetting& run);

}  // namespace fedverify::theory
