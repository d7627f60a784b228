// FedAvg (THEORY F0): H local SGD steps on every client, then the server averages the models.
// Its closed forms: the first-order stationary moments (F2), (F3); on quadratic problems the
// exact round map and stationary moments (F5), the deterministic fixed point (F4) and the
// contraction factor of the round map. SGD (G0, G1) is FedAvg with H = 1 (sgd.cpp).
#pragma once

#include <optional>

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/trajectory_moments.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// Mean x* + γ(H−1)b_h + γb_s, covariance (γ/N)𝒜C̄.                      THEORY (F3), (F2)
FirstOrderMoments fedavg_first_order(const ExpansionCoefficients& k, const RunSetting& setting);

// FedAvg's round map on a quadratic problem.                                        THEORY (F5)
AffineRoundMap fedavg_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// THEORY (T1): FedAvg's exact trajectory from x0 on a quadratic problem (the chain of
// fedavg_round_map) or a linear-sa one (fedavg_trajectory_lsa); nullopt on other kinds.
std::optional<TrajectoryMoments> fedavg_trajectory(const Problem& problem,
                                                   const RunSetting& setting, const Vector& x0,
                                                   int rounds);

// Exact stationary mean and covariance of FedAvg (THEORY F5); SGD is H = 1.
// Throws InputError("--gamma: …") when the spectral radius of the round map is ≥ 1.
ExactMoments fedavg_exact(const QuadraticProblem& problem, const RunSetting& setting);

// Deterministic FedAvg (no noise): the fixed point x_{γ,H} by the closed form of THEORY (F4),
// and the Lipschitz constant ‖M‖₂ of the round map (its contraction factor).
Vector fedavg_fixed_point(const QuadraticProblem& problem, const RunSetting& setting);
double fedavg_contraction_factor(const QuadraticProblem& problem, const RunSetting& setting);

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

// The second-order coefficients of FedAvg's stationary moments on a quadratic problem (THEORY
// (F7), derived here): at fixed H, as γ → 0,
//   E_π[x]    = x* + γ(H−1) b_h + γ² c₂(H) + O(γ³H³),
//   Cov_π(x)  = (γ/N) 𝒜C̄ + γ² X₁(H) + O(γ³H²)          (about the stationary mean),
//   c₂(H) = ((H−1)²/2) 𝐇⁻¹M₂ b_h − ((H−1)(H−2)/6) 𝐇⁻¹ (1/N) Σ_c A_c² ∇f_c(x*),
//   X₁(H) = (1/N) 𝒜[ ((H−1)/2)(M₂Y + YM₂ − (1/N) Σ_c (A_cS_c + S_cA_c)) + H 𝐇Y𝐇 ],
// with M₂ = (1/N) Σ_c A_c², Y = 𝒜C̄. (Expand (I − B_c^H)/γ and Q/γ² of (F5) to O(γ) and solve
// the fixed-point and Lyapunov equations order by order.) So the mean remainder grows like
// γ²H² and the centred covariance remainder like γ²H.
struct FedavgSecondOrder {
  Vector mean;  // c₂(H)
  Matrix cov;   // X₁(H)
};
FedavgSecondOrder fedavg_second_order(const QuadraticProblem& problem,
                                      const ExpansionCoefficients& k, int local_steps);

// Wang et al.'s "average drift" at the optimum (THEORY (N5)): every client runs H deterministic
// local gradient steps from x*, x_c^{(h+1)} = x_c^{(h)} − γ∇f_c(x_c^{(h)}), and
//   g = (1/(NH)) Σ_c Σ_{h<H} ∇f_c(x_c^{(h)}),   ζ_drift = ‖g‖²,
// so that one deterministic FedAvg round moves x* by T(x*) − x* = −γH g.
struct AverageDrift {
  Vector g;           // the average local gradient along the local paths from x*
  double zeta = 0;    // ‖g‖²
  Vector round_step;  // T(x*) − x* = −γH g
};
AverageDrift average_drift(const Problem& problem, const Vector& x_star, const RunSetting& step);

// The deterministic FedAvg round T(x) = (1/N) Σ_c T_c^H(x) (full local gradients), and its
// fixed point x_{γ,H} found by iterating T from `start` until ‖T(x) − x‖ ≤ tolerance·(1 − ρ) with
// ρ = (1 − γμ)^H (then ‖x − x_{γ,H}‖ ≤ tolerance, THEORY (F1)). Requires γ ≤ 1/L. On quadratics
// it agrees with fedavg_fixed_point (F4).
Vector fedavg_deterministic_round(const Problem& problem, const RunSetting& step, const Vector& x);
Vector fedavg_deterministic_fixed_point(const Problem& problem, const RunSetting& step,
                                        const Vector& start, double tolerance);

// The two-sided bound of THEORY (F8) on the heterogeneity bias by the average drift: for a
// round map that is ρ-Lipschitz,
//   γH√ζ_drift / (1 + ρ) ≤ ‖x_{γ,H} − x*‖ ≤ γH√ζ_drift / (1 − ρ).
struct DriftBiasBound {
  double lower = 0;
  double upper = 0;
};
DriftBiasBound drift_bias_bound(const AverageDrift& drift, double rho);

}  // namespace fedverify::theory
