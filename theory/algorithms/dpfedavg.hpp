// DP-FedAvg (THEORY (A5); McMahan et al. 2018): FedAvg whose clients' updates y_c − x_t are
// clipped to norm S and whose server adds Gaussian noise N(0, σ_dp² I) to x_{t+1}. Without
// clipping the chain is FedAvg's linear chain with the extra noise: exact laws on quadratic and
// linear-sa problems, and the first order (A5) below. With clipping it is not linear: simulate.
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// THEORY (A5), derived here: E_π x as FedAvg's (the noise is centred), and
//   Cov_π = (γ/N)𝒜C̄_p + (σ_dp²/(γH)) 𝒜I + O(γ) + O(σ_dp²),
// 𝒜I = ½𝐇⁻¹ for a symmetric 𝐇 (the linear-sa 𝒜 of (L2) otherwise): the privacy noise does not
// shrink with γ, its share of the spread grows like 1/γ².
FirstOrderMoments dpfedavg_first_order(const ExpansionCoefficients& k, const RunSetting& s);

// FedAvg's setting of a DP-FedAvg one: the same γ and H without σ_dp and S.
RunSetting without_dp_parameters(const RunSetting& s);

// The exact stationary law without clipping: (F5) with Q + σ_dp² I. Throws InputError naming
// --clip when the setting clips.
ExactMoments dpfedavg_exact(const QuadraticProblem& q, const RunSetting& s);

}  // namespace fedverify::theory
