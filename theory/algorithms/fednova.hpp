// FedNova (THEORY A2, Wang et al. 2020): client c runs its own number H_c of local SGD steps
// (--client-steps, the algorithm's own parameter), and the server averages the normalised
// updates (x − y_c)/H_c and rescales them by τ_eff = H̄ = (1/N) Σ_c H_c:
//     x_{t+1} = x_t − H̄ (1/N) Σ_c (x_t − y_c)/H_c.
// With every H_c = H it is FedAvg (F0). Its closed forms: on quadratic problems the exact round
// map and stationary moments (FedAvg's (F5) with client c's terms weighted by w_c = H̄/H_c, its
// noise by w_c²); no first-order expansion (the per-client H_c enter through per-client
// gradients and Hessians at x*, which the expansion coefficients do not keep).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/fednova_setting.hpp"

namespace fedverify::theory {

// FedNova's round map on a quadratic problem, z' = (I − γD) z + γ r + η, Cov(η) = γG, with
//   D = (1/N) Σ_c w_c P_c A_c,  r = (1/N) Σ_c w_c P_c A_c b_c,  G = (γ/N²) Σ_c w_c² Σ_{h<H_c} B_c^h
//   S_c B_c^h,
// w_c = H̄/H_c, P_c = Σ_{h<H_c} B_c^h, B_c = I − γA_c.                                THEORY (A2)
AffineRoundMap fednova_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// Exact stationary mean and covariance (the mean solves D m = r; Σ = MΣMᵀ + γG). Throws
// InputError naming --gamma when the round map does not contract, and naming --client-steps when
// the list has neither 1 nor N values.
ExactMoments fednova_exact(const QuadraticProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
