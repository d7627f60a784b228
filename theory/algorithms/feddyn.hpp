// FedDyn (docs/THEORY-FedDyn.md (FD0), Acar et al., "Federated Learning Based on Dynamic
// Regularization", ICLR 2021, Algorithm 1), full participation. Client c keeps h_c (the paper's
// ∇L_k(θ_k^{t−1}), 0 at t = 0); from the server model x it runs H local SGD steps of size γ on
//     f_c(y) − ⟨h_c, y⟩ + (α/2)‖y − x‖²,
// i.e. y ← y − γ(g_c(y) − h_c + α(y − x)), from y = x; then h_c ← h_c − α(y_c − x), and the
// server sets h̄ = (1/N) Σ_c h_c (the paper's server state h, equal to it under full participation
// from h = 0) and x ← (1/N) Σ_c y_c − h̄/α. α is the parameter --dyn-alpha.
//
// Closed forms on quadratic problems: the round is affine in the stacked state
// z = (x, h_1, …, h_N) with additive noise (FD1); its fixed point is (x*, ∇f_1(x*), …, ∇f_N(x*))
// for every γ and H (FD2), hence the stationary mean of x is x* exactly; the stationary
// covariance solves the discrete Lyapunov equation of the stacked map (FD3).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/feddyn_setting.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

// The round map of z = (x, h_1, …, h_N) on f_c = ½(y − b_c)ᵀA_c(y − b_c), divided by γ:
// with Ã_c = A_c + αI, B̃_c = I − γÃ_c, P̃_c = Σ_{h<H} B̃_c^h, client c's move is
//   u_c = y_c − x = γ P̃_c (A_c(b_c − x) + h_c) + n_c,  Cov(n_c) = γ² Q̂_c = γ² Σ_h B̃_c^h S_c B̃_c^h,
// h_c' = h_c − α u_c, x' = x + 2ū − h̄/α (ū, h̄ the means over clients), so
//   D_xx = (2/N) Σ P̃_cA_c,  D_x,h_c = I/(Nαγ) − (2/N) P̃_c,  r_x = (2/N) Σ P̃_cA_cb_c,
//   D_h_c,x = −α P̃_cA_c,  D_h_c,h_c = α P̃_c,  r_h_c = −α P̃_cA_cb_c,
//   G_xx = (4γ/N²) Σ Q̂_c,  G_x,h_c = −(2αγ/N) Q̂_c,  G_h_c,h_c = α²γ Q̂_c.     THEORY-FedDyn (FD1)
AffineRoundMap feddyn_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// The deterministic fixed point (x*, ∇f_1(x*), …, ∇f_N(x*)) of that map, for every γ, H, α (the
// stationary mean of the stacked state: the noise is additive and centred).   THEORY-FedDyn (FD2)
Vector feddyn_fixed_point(const QuadraticProblem& problem);

// Exact stationary moments of the stacked state (mean: D m = r; covariance: the discrete
// Lyapunov equation of the map, one dense Schur form of size d(N+1)). Throws InputError naming
// --gamma when the map does not contract, and naming the problem when the estimated time
// 2e-9 s × (d(N+1))³ exceeds limits::closed_form_seconds().                 THEORY-FedDyn (FD3)
ExactMoments feddyn_exact_state(const QuadraticProblem& problem, const RunSetting& setting);

// The x block of feddyn_exact_state.                                        THEORY-FedDyn (FD3)
ExactMoments feddyn_exact(const QuadraticProblem& problem, const RunSetting& setting);

// The small-step limit of the stationary covariance of x at fixed α and H (found numerically,
// then derived from the two-time-scale oscillator of THEORY-FedDyn (FD4)): it does NOT vanish
// as γ → 0,
//   lim_{γ→0} Cov_π(x) = (1/(NH)) Σ_λ Π_λ C̄ Π_λ / (2λ(λ + α)),
// the sum over the distinct eigenvalues λ of 𝐇 = (1/N) Σ_c A_c with eigenprojectors Π_λ,
// C̄ = (1/N) Σ_c S_c; the error is O(γ) relative (O(γ/gap²) for the cross terms of eigenvalues a
// gap apart). Eigenvalues within 1e-9·λ_max of each other count as one.  THEORY-FedDyn (FD4)
Matrix feddyn_small_step_cov(const QuadraticProblem& problem, const RunSetting& setting);

// FedDyn on a linear-sa or least-squares problem drawn with replacement (THEORY-FedDyn (FD5)): the
// exact stationary law of the stacked state z = (x, h_1, …, h_N). Client c's H steps act on its
// local state v = (y, x, h_c, 1) by the random matrices L = [[I − γ(Ā_S + αI), γαI, γI, γb̄_S], …]
// (the identity on x, h_c and 1), so a round is z' = M z with M = C₀ + Σ_c C_c P_y V_c E_c,
// V_c = L_H ⋯ L_1 independent across clients: E[M] and E[M ⊗ M] = E[M] ⊗ E[M] + Σ_c (E[R_c ⊗ R_c]
// − E[R_c] ⊗ E[R_c]) from E[L̄] and E[L̄ ⊗ L̄] = (1/B)E[L ⊗ L] + (1 − 1/B)E[L] ⊗ E[L] (the minibatch
// of (L1)), solved by theory/closed_forms/augmented_moments.hpp about the fixed point (FD2), which
// is the stationary mean (the mean field is FedDyn's deterministic round). Throws InputError naming
// "sampling" for a reshuffled problem, --problem when the stacked state has more than
// kMaxFeddynLsaState coordinates (the second-moment system has their square), and --gamma when
// there is no stationary law.
ExactMoments feddyn_exact_state_lsa(const LinearSaProblem& problem, const RunSetting& setting);
inline constexpr int kMaxFeddynLsaState = 40;

}  // namespace fedverify::theory
