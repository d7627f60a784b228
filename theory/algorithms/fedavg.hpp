// FedAvg (THEORY F0): H local SGD steps on every client, then the server averages the models.
// Its closed forms: the first-order stationary moments (F2), (F3); on quadratic problems the
// exact round map and stationary moments (F5), the deterministic fixed point (F4) and the
// contraction factor of the round map. SGD (G0, G1) is FedAvg with H = 1 (sgd.cpp).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::theory {

// Mean x* + γ(H−1)b_h + γb_s, covariance (γ/N)𝒜C̄.                      THEORY (F3), (F2)
FirstOrderMoments fedavg_first_order(const ExpansionCoefficients& k, const StepSetting& setting);

// FedAvg's round map on a quadratic problem.                                        THEORY (F5)
AffineRoundMap fedavg_round_map(const QuadraticProblem& problem, const StepSetting& setting);

// Exact stationary mean and covariance of FedAvg (THEORY F5); SGD is H = 1.
// Throws InputError("--gamma: …") when the spectral radius of the round map is ≥ 1.
ExactMoments fedavg_exact(const QuadraticProblem& problem, const StepSetting& setting);

// Deterministic FedAvg (no noise): the fixed point x_{γ,H} by the closed form of THEORY (F4),
// and the Lipschitz constant ‖M‖₂ of the round map (its contraction factor).
Vector fedavg_fixed_point(const QuadraticProblem& problem, const StepSetting& setting);
double fedavg_contraction_factor(const QuadraticProblem& problem, const StepSetting& setting);

// FedAvg's stationary mean as H → ∞ at fixed γ (THEORY (F6), derived here). For 0 < γ < 2/L,
// L = max_c λ_max(A_c), every B_c = I − γA_c has spectral radius q_c < 1, so B_c^H → 0 and the
// (F4) fixed point tends to the average of the client optima, whatever the Hessians:
//   x_{γ,H} = x̄ − W_H⁻¹ Σ_c B_c^H (b_c − x̄),   W_H = Σ_c (I − B_c^H),   x̄ = (1/N) Σ_c b_c,
//   ‖x_{γ,H} − x̄‖ ≤ q^H / (1 − q^H) · (1/N) Σ_c ‖b_c − x̄‖,   q = max_c q_c.
// (Σ_c (b_c − x̄) = 0 gives the first line from (F4); ‖B_c^H‖₂ = q_c^H and W_H = N(I − E) with
// ‖E‖₂ ≤ q^H give the bound.) The stationary bias therefore levels off at x̄ − x*, whereas the
// first-order γ(H−1)b_h of (F3) grows without bound in H.
struct FedavgLargeHLimit {
  Vector limit;       // x̄ = (1/N) Σ_c b_c
  double q = 0;       // max_c ρ(I − γA_c) < 1: the per-step contraction of the slowest client
  double spread = 0;  // (1/N) Σ_c ‖b_c − x̄‖
  // q^H / (1 − q^H) · spread: bound on ‖x_{γ,H} − x̄‖ (infinite when q^H rounds to 1).
  double gap_bound(int local_steps) const;
};
// Throws InputError("--gamma: …") unless 0 < γ < 2/L (then some B_c^H does not tend to 0).
FedavgLargeHLimit fedavg_large_h_limit(const QuadraticProblem& problem, double gamma);

}  // namespace fedverify::theory
