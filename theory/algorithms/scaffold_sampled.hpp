// Scaffold with S of N clients sampled without replacement each round (THEORY S8, derived here):
// the exact stationary law on quadratic problems with additive Gaussian noise.
//
// With full participation Scaffold's state is (x, ξ_1, …, ξ_N) on Σ_c ξ_c = 0 (THEORY S6). With
// client sampling it is not: a client that sits out keeps its variate c_c, the server's c stays
// the average of the c_c, and ξ_c = c − c_c alone no longer determines the round. The state is
//   z = (x, c_1, …, c_N) ∈ ℝ^{d(N+1)},  c = (1/N) Σ_c c_c,  ξ_c = c − c_c,
// and the round of Karimireddy et al. (2020, Algorithm 1, option II, global step 1) is, for the
// sampled clients S,
//   x − y_c = γ(D_c x − r_c) + γP_cξ_c − n_c         (H corrected local steps, as (O0)),
//   c_c' = (x − y_c)/(Hγ) − ξ_c  (c ∈ S),  c_c' = c_c  (c ∉ S),
//   x' = x − (1/S) Σ_{c∈S} (x − y_c),
// with P_c = Σ_{h<H}(I − γA_c)^h, D_c = P_cA_c, r_c = D_cb_c, Cov(n_c) = γ²Q̂_c as in (O0); the
// server update c' = c + (1/N)Σ_{c∈S}(c_c' − c_c) keeps c the average, so it is not a state.
// The round is linear in the inclusion indicators ι_c: z' = z + Σ_c ι_c (B_c z + t_c + G_c n_c).
// With p = E[ι_c] = S/N, q = E[ι_cι_c'] = S(S−1)/(N(N−1)) (c ≠ c'), B̄ = Σ_c B_c, t̄ = Σ_c t_c:
//   mean        B̄ μ = −t̄   (x = x*, c_c = ∇f_c(x*): every subset's round fixes it),
//   covariance  0 = p(B̄Σ + ΣB̄ᵀ) + q B̄ΣB̄ᵀ + (p − q) Σ_c B_cΣB_cᵀ + (p − q) Σ_c w_cw_cᵀ + p Σ_c Q_c,
//               w_c = B_cμ + t_c,  Q_c = G_c Cov(n_c) G_cᵀ
// (E[z' z'ᵀ] expanded in the indicators; Σ_c w_c = 0 at the mean). With S = N (p = q = 1) this is
// the Lyapunov equation of Scaffold's fixed round map, in (x, c) coordinates.
//
// Numerical strategy: the covariance equation is solved as one dense linear system in vec Σ
// (Kronecker form, (d(N+1))² unknowns, LU), and mean-square stability is the spectral radius of
// the second-moment map 𝒯 = I + p(I⊗B̄ + B̄⊗I) + q B̄⊗B̄ + (p − q)Σ_c B_c⊗B_c. Both are O(s⁶) in
// s = d(N+1), which is why the state is capped at kScaffoldSampledMaxState: this is the law for
// the small problems of `fedverify conformance`, not a solver for large ones.
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::theory {

// s = d(N + 1) at most this (𝒯 is s² × s²: 900 × 900, about a second).
inline constexpr int kScaffoldSampledMaxState = 30;

// Exact stationary moments of z = (x, c_1, …, c_N) for Scaffold with setting.participating of the
// N clients per round (0 means N). spectral_radius is that of the second-moment map 𝒯 (the chain
// has a stationary law iff it is < 1). Throws InputError naming --participating when S ∉ [1, N],
// naming problem when d(N + 1) > kScaffoldSampledMaxState, and naming --gamma when the chain is
// not mean-square stable.
ExactMoments scaffold_sampled_exact(const QuadraticProblem& problem, const RunSetting& setting);

// The condition number of the mean system B̄ μ = −t̄ (2-norm): what the round-off of the exact
// mean is measured against. Same errors as scaffold_sampled_exact for S and the size.
double scaffold_sampled_mean_condition(const QuadraticProblem& problem, const RunSetting& setting);

// First-order moments (THEORY S8a, derived here): mean x* + γb_s (no heterogeneity term, as
// (S3)), covariance (γ/S)(2 − S/N)𝒜C̄ — the variates' stale noise adds (γ/S)(1 − S/N)𝒜C̄ to
// the fresh noise's (γ/S)𝒜C̄, and nothing heterogeneity-driven (FedAvg's (O5) G term is absent).
// N is k.num_clients.
FirstOrderMoments scaffold_sampled_first_order(const ExpansionCoefficients& k,
                                               const RunSetting& setting);

}  // namespace fedverify::theory
