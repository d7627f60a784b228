// Scaffold (THEORY S0): FedAvg whose local steps are corrected by control variates ξ_c, so that
// the heterogeneity bias vanishes. Its closed forms: the first-order stationary moments of x
// (S2), (S3) and of the control variates (S4); on quadratic problems the exact stationary
// moments of the stacked state (x, ξ_1, …, ξ_N) (S6).
#pragma once

#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::theory {

// Mean x* + γb_s (no heterogeneity term), covariance (γ/N)𝒜C̄.          THEORY (S3), (S2)
// With a global step η_g (--server-lr): γη_g in place of γ in both.                 THEORY (S9)
FirstOrderMoments scaffold_first_order(const ExpansionCoefficients& k, const RunSetting& setting);

// Scaffold control-variate covariance blocks at first order (THEORY S4), with C_c = C_c(x*).
struct ScaffoldControlVariateMoments {
  std::vector<Matrix> xi_xi;  // Σ^ξ_(c,c'), index c·N + c'
  std::vector<Matrix> x_xi_plus;  // Σ^{x,ξ}_(c) as printed: +(γ/N)𝒜C̄(∇²f_c − 𝐇) + (γ/N)(C_c − C̄)
  std::vector<Matrix> x_xi_minus;  // the candidate with a minus sign on the first term
  int num_clients = 0;
  const Matrix& cov_xi(int c, int c2) const { return xi_xi[c * num_clients + c2]; }
};
ScaffoldControlVariateMoments scaffold_control_variate_first_order(const Problem& problem,
                                                                   const ExpansionCoefficients& k,
                                                                   const RunSetting& setting);

// Cost of scaffold_exact (the structured solve of THEORY S6a), s = d(N+1), measured on the 2-core
// development machine (one thread; bench/README.md, "Exact engine"): ≈ 20 GMRES products of
// O(d s²), ≈ 3e-8 s × d s² (s = 2505, d = 5: 0.5 s; the dense solve took 377 s), plus, when
// γH·L > 1 (L the largest client curvature), the eigenvalues of the dense map for the spectral
// radius, ≈ 2e-9 s × s³ (also the cost of the dense solve of THEORY S6).
// Sizes whose estimate exceeds theory::limits::closed_form_seconds() (10 s by default) are
// refused before starting (docs/CLI.md, "Resource limits").
inline constexpr double kScaffoldDenseSecondsPerCube = 2e-9;
inline constexpr double kScaffoldStructuredSecondsPerDSquare = 3e-8;
// Throws InputError("problem: Scaffold's exact moments … would take about T s …") when that
// estimate exceeds limits::closed_form_seconds().
void require_scaffold_exact_affordable(const QuadraticProblem& problem, const RunSetting& setting);

// The round map of the stacked state on a quadratic problem (THEORY S0, S6), and its exact
// stationary moments on the invariant subspace Σ_c ξ_c = 0 (THEORY S6). Throws
// InputError("--gamma: …") when the round map does not contract there, and as
// require_scaffold_exact_affordable for sizes too large.
AffineRoundMap scaffold_round_map(const QuadraticProblem& problem, const RunSetting& setting);
ScaffoldExactMoments scaffold_exact(const QuadraticProblem& problem, const RunSetting& setting);

// scaffold_exact is the structured solve of THEORY (S6a) (scaffold_structured.hpp) at every size:
// it is faster than the dense solve of THEORY (S6) from s = 105 on (1.9 against 3.1 ms CPU at
// d = N = 10) and keeps the x block accurate at small γ, where the dense solve of the stacked
// divided form loses digits (2e-8 relative at γL = 1e-4, H = 1: scaffold_structured_test.cpp).
// The dense solve (Helmert basis, one Schur form of the reduced map, O(s³)) stays as the tests'
// reference. scaffold_spectral_radius uses the dense eigenvalues below s = kScaffoldStructuredSize
// (as cheap there, and the maps' boundaries stay where they were), the structured radius above.
// With a global step η_g ≠ 1 (THEORY S9) both are the dense ones at every size.
inline constexpr int kScaffoldStructuredSize = 200;
bool scaffold_uses_structured_solve(int dim, int clients, const RunSetting& setting);
ScaffoldExactMoments scaffold_exact_dense(const QuadraticProblem& problem,
                                          const RunSetting& setting);

// The spectral radius of that round map on Σ_c ξ_c = 0 (the one scaffold_exact reports, to
// round-off), also
// when it is ≥ 1 (no stationary law): stability and contraction maps need it there too.
double scaffold_spectral_radius(const QuadraticProblem& problem, const RunSetting& setting);

// The weight w = γ²H²/N of the metric in which THEORY (S1) states Scaffold's W2 contraction:
//   ‖(x, ξ)‖²_w = ‖x‖² + w Σ_c ‖ξ_c‖².
double scaffold_s1_weight(const RunSetting& setting, int clients);

// The operator norm of Scaffold's round map T (THEORY (S6)) on Σ_c ξ_c = 0 in the metric
// ‖·‖_w above: sup ‖T v‖_w / ‖v‖_w. On a quadratic problem with additive noise two chains
// coupled synchronously differ by T^t v, so W2(law(z_t), π) ≤ ‖T‖_w^t W2(law(z₀), π) in that
// metric, with equality for a shifted start z₀ = z + v: (S1)'s contraction at (1 − γμ)^H holds
// for every start iff ‖T^t‖_w ≤ (1 − γμ)^{Ht} for all t, and ‖T‖_w ≤ (1 − γμ)^H suffices.
double scaffold_weighted_norm(const QuadraticProblem& problem, const RunSetting& setting,
                              double weight);

// Scaffold's stationary covariance of x at second order on a quadratic problem (THEORY (S7),
// found numerically here, not derived): Cov_π(x) = (γ/N)𝒜C̄ + γ² (1/N) 𝒜(𝐇 (𝒜C̄) 𝐇) + O(γ³H²),
// the SGD coefficient (FedAvg's X₁ at H = 1), independent of H. Returns that γ² coefficient.
Matrix scaffold_second_order_cov(const ExpansionCoefficients& k);

// Exact E‖x_t − x*‖², t = 0..rounds, of Scaffold started at x_0 with ξ_c = 0, by propagating the
// mean and covariance of the stacked linear-Gaussian chain (THEORY S6): m ← T m + γ r,
// P ← T P Tᵀ + γ G.
std::vector<double> scaffold_transient_mse(const QuadraticProblem& q, const RunSetting& step,
                                           const Vector& x0, const Vector& x_star, int rounds);

}  // namespace fedverify::theory
