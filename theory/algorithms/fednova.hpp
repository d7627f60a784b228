// FedNova (THEORY A2, Wang et al. 2020): client c runs its own number H_c of local SGD steps
// (--client-steps, the algorithm's own parameter), and the server averages the normalised
// updates (x − y_c)/H_c and rescales them by τ_eff = H̄ = (1/N) Σ_c H_c:
//     x_{t+1} = x_t − H̄ (1/N) Σ_c (x_t − y_c)/H_c.
// With every H_c = H it is FedAvg (F0). Its closed forms: on quadratic problems the exact round
// map and stationary moments (FedAvg's (F5) with client c's terms weighted by w_c = H̄/H_c, its
// noise by w_c²); no first-order expansion through the expansion coefficients (the per-client H_c
// enter through per-client Hessians and noises, which they do not keep) — the first-order
// covariance with unequal steps is computed from the problem instead (A2b below). On linear-sa
// problems: unequal_steps_exact_lsa, unequal_steps_trajectory_lsa (linear_sa.hpp).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/fednova_setting.hpp"

namespace fedverify::theory {

// FedNova's round map on a quadratic problem, z' = (I − γD) z + γ r + η, Cov(η) = γG, with
//   D = (1/N) Σ_c w_c P_c A_c,  r = (1/N) Σ_c w_c P_c A_c b_c,  G = (γ/N²) Σ_c w_c² Σ_{h<H_c} B_c^h
//   S_c B_c^h,
// w_c = H̄/H_c, P_c = Σ_{h<H_c} B_c^h, B_c = I − γA_c.                                THEORY (A2)
AffineRoundMap fednova_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// The round map above with either aggregation (UnequalStepsAggregation, fednova_setting.hpp)
// (fednova_round_map is the normalised one); H_c are the setting's client_steps.
AffineRoundMap unequal_steps_round_map(const QuadraticProblem& problem, const RunSetting& setting,
                                       UnequalStepsAggregation aggregation);

// Exact stationary moments with either aggregation (InputError as fednova_exact).
ExactMoments unequal_steps_exact(const QuadraticProblem& problem, const RunSetting& setting,
                                 UnequalStepsAggregation aggregation);

// (A2a) The surrogate optimum x̃ = argmin Σ_c H_c f_c = (Σ_c H_c A_c)⁻¹ Σ_c H_c A_c b_c, the limit
// of plain FedAvg's fixed point as γ → 0 (D → (1/N) Σ_c H_c A_c, r → (1/N) Σ_c H_c A_c b_c);
// FedNova's tends to x* (w_c H_c = H̄ for every c).                                THEORY (A2a)
Vector surrogate_optimum(const QuadraticProblem& problem, const RunSetting& setting);

// (A2b) The first-order stationary covariance with unequal steps, Cov_π = γΣ₁ + O(γ²): Σ₁ solves
// D₀Σ₁ + Σ₁D₀ = Q₀ with D₀ = (1/N) Σ_c w_c H_c A_c and Q₀ = (1/N²) Σ_c w_c² H_c S_c (the round's
// D and G/γ at γ → 0). FedNova: Σ₁ = (1/N)𝒜((1/N) Σ_c (H̄/H_c) S_c), the noise of a client with
// fewer steps weighted H̄/H_c; plain FedAvg: D₀ = (1/N) Σ_c H_c A_c, Q₀ = (1/N²) Σ_c H_c S_c.
// Equal steps: both (1/N)𝒜C̄, (F2).                                                 THEORY (A2b)
Matrix unequal_steps_first_order_cov(const QuadraticProblem& problem, const RunSetting& setting,
                                     UnequalStepsAggregation aggregation);

// THEORY (A2c): with random steps (random_steps(setting): H_c uniform on {1, …, K_c} each round,
// independently), the exact stationary moments with either aggregation, by enumerating the joint
// draws (Π_c K_c round maps, each unequal_steps_round_map of its draw; at most
// kMaxRandomStepDraws, else InputError naming --client-steps): the random affine recursion of
// theory/closed_forms/augmented_moments.hpp, in coordinates about x*.
ExactMoments random_steps_exact(const QuadraticProblem& problem, const RunSetting& setting,
                                UnequalStepsAggregation aggregation);
inline constexpr double kMaxRandomStepDraws = 1e5;

// (A2c) The limit of plain FedAvg's stationary mean with random steps as γ → 0: the surrogate
// optimum with the expected steps, argmin Σ_c E[H_c] f_c, E[H_c] = (K_c + 1)/2. FedNova's tends to
// x* (w_c H_c = τ_eff for every draw).
Vector expected_steps_surrogate(const QuadraticProblem& problem, const RunSetting& setting);

// Exact stationary mean and covariance (the mean solves D m = r; Σ = MΣMᵀ + γG). Throws
// InputError naming --gamma when the round map does not contract, and naming --client-steps when
// the list has neither 1 nor N values.
ExactMoments fednova_exact(const QuadraticProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
