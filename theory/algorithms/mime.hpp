// Mime with SGD-momentum as its base optimiser (docs/THEORY-Mime.md (MI0); Karimireddy et al.,
// "Mime: Mimicking Centralized Stochastic Algorithms in Federated Learning", 2021, Algorithm 1),
// full participation, client weights p_c, server step 1. The server keeps x and the momentum m.
// A round: c = Σ_c p_c ∇f_c(x) (full-batch gradients at x); every client runs, from y = x,
//     y ← y − η((1 − β)(g_c(y; ζ) − g_c(x; ζ) + c) + βm)      (H times, ζ one draw for both)
// with m frozen; then m ← (1 − β)c + βm and x ← Σ_c p_c y_c. η is --gamma, β --mime-beta.
//
// On an affine field the control variate g_c(y; ζ) − g_c(x; ζ) is the draw's linear part applied
// to y − x, and the client's constant term (1 − β)c + βm is the NEW momentum m': every client
// moves along m' through its own Hessians, and the b_c never enter the round (MI1).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/trajectory_moments.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/mime_setting.hpp"

namespace fedverify::theory {

// The round map on z = (x, m) of a quadratic problem (additive noise cancels in the control
// variate: the round is deterministic, G = 0). With B_c = I − η(1 − β)A_c, P_c = Σ_{h<H} B_c^h,
// P̄ = Σ_c p_c P_c and 𝐇 = Σ_c p_c A_c:
//     m' = (1 − β)𝐇(x − x*) + βm,    x' = x − ηP̄m'.                     THEORY-Mime (MI1)
// (In AffineRoundMap's divided form D = (I − M)/γ; the momentum rows are O(1/γ).)
AffineRoundMap mime_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// (MI2), the mimicry, needs no function of its own: the centralised method is this round on the
// pooled one-client problem {𝐇, x*} (P̄ becomes P(𝐇)), and Mime's round differs from it by
// η(P̄ − P(𝐇))m', second order in the Hessian dissimilarity A_c − 𝐇 and free of the b_c.

// The stationary law of z = (x, m) on a quadratic problem: the point mass at the round map's fixed
// point (solved from the map, which is written from the updates without x*; (MI1) says it is
// (x*, 0) for every η, H, β), with the spectral radius of the map; InputError naming --gamma when
// it is ≥ 1.                                                               THEORY-Mime (MI1)
ExactMoments mime_exact_state(const QuadraticProblem& problem, const RunSetting& setting);

// The x block of mime_exact_state.                                           THEORY-Mime (MI1)
ExactMoments mime_exact(const QuadraticProblem& problem, const RunSetting& setting);

// Mime on a linear-sa or least-squares problem drawn with replacement (MI3): about the fixed
// point, z − z* = (x − x*, m) follows z' = M z with M = C₀ + Σ_c R_c random (the control variate
// leaves the draws' linear parts only: no additive noise), R_c = p_c P_x V_c E, V_c = L_H ⋯ L_1
// the client's steps on its local state (y − x, x − x*, m). From z₀ = (x₀ − x*, 0):
//     E z_{t+1} = E[M] E z_t,   vec E[z_{t+1} z_{t+1}ᵀ] = E[M ⊗ M] vec E[z_t z_tᵀ],
//     E[M ⊗ M] = E[M] ⊗ E[M] + Σ_c (E[R_c ⊗ R_c] − E[R_c] ⊗ E[R_c]).
// Throws InputError naming "sampling" for a reshuffled problem, --problem when 3d exceeds
// kMaxMimeLsaLocalState (E[L ⊗ L] has (3d)² rows), --rounds as every exact curve does.
TrajectoryMoments mime_trajectory_lsa(const LinearSaProblem& problem, const RunSetting& setting,
                                      const Vector& x0, int rounds);
inline constexpr int kMaxMimeLsaLocalState = 30;

// Its stationary law: the point mass at (x*, 0) when ρ(E[M ⊗ M]) < 1 (then E‖z_t − z*‖² → 0
// at that rate per round), else InputError naming --gamma. spectral_radius is √ρ(E[M ⊗ M]), the
// root-mean-square contraction per round.                                  THEORY-Mime (MI3)
ExactMoments mime_exact_state_lsa(const LinearSaProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
