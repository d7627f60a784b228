// DP-FedAvg with a binding clip, at first order, on one-dimensional quadratic problems (THEORY
// A5c, derived here). A client's update over H steps from x is, to first order in γH,
//   u_c = −γH g_c(x),   g_c(x) = a_c(x − b_c) + ξ̄_c,   ξ̄_c ~ N(0, s_c²/H),
// (a_c, b_c, s_c² the client's Hessian, optimum and gradient-noise variance), so a clip that
// binds for small steps must scale with the step: S = κγH. Then clip_S(u_c) = −γH clamp_κ(g_c)
// and the round is x' = x − γH Σ_c p_c clamp_κ(g_c(x)) + σ_dp ζ + O(γ²H²). Hence, as γ → 0 at
// fixed κ:
//   mean:      x_κ solving F(x) = Σ_c p_c E[clamp_κ(g_c(x))] = 0 — NOT x*: a clipping bias of
//              order 1 in γ (x_κ → x* as κ → ∞; x_κ = x* when the clients are symmetric about x*);
//   variance:  Var = γH V/(2J) + σ_dp²/(2γHJ) + O(γ) relative, with
//              J = F'(x_κ) = Σ_c p_c a_c P(|g_c(x_κ)| < κ)      (the clip's contraction loss),
//              V = Σ_c p_c² Var(clamp_κ(g_c(x_κ)))              (the clipped update noise),
// which for κ → ∞ is (A5) in one dimension (J = ā_p, V = Σ p_c² s_c²/H). The expectations are
// those of a Gaussian clamped to [−κ, κ], in closed form.
#pragma once

#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// E[clamp_κ(G)] and Var(clamp_κ(G)) for G ~ N(mu, var) (var ≥ 0).
struct ClampedMoments {
  double mean = 0, variance = 0, inside = 0;  // inside = P(|G| < κ)
};
ClampedMoments clamped_gaussian_moments(double mu, double var, double kappa);

struct DpClipFirstOrder {
  double kappa = 0;         // S/(γH)
  double mean = 0;          // x_κ
  double variance = 0;      // γH V/(2J) + σ_dp²/(2γHJ)
  double contraction = 0;   // J
  double update_noise = 0;  // V
};
// Throws InputError naming the problem (d ≠ 1) or --clip (absent or not > 0).
DpClipFirstOrder dpfedavg_clip_first_order(const QuadraticProblem& problem, const RunSetting& s);

}  // namespace fedverify::theory
