// FedRR (THEORY R0): Richardson–Romberg extrapolation χ = 2 x^{(γ)} − x^{(2γ)} of two FedAvg runs
// at γ and 2γ, whose noise is independent (the default) or shared. Its closed forms: the
// first-order stationary moments (R1), (R2) and, on quadratic problems, the exact ones.
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::theory {

// Mean x* (both biases 0), covariance (6γ/N)𝒜C̄, independent noise.      THEORY (R1), (R2)
FirstOrderMoments fedrr_first_order(const ExpansionCoefficients& k, const RunSetting& setting);

// Exact stationary moments of χ from the joint chain of the two FedAvg runs (THEORY R1, R2).
// Requires a stationary law at 2γ: throws InputError("--gamma: …") otherwise.
ExactMoments fedrr_exact(const QuadraticProblem& problem, const RunSetting& setting,
                         NoiseCoupling coupling = NoiseCoupling::independent);

}  // namespace fedverify::theory
