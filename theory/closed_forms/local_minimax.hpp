// Local minimax points of a non-convex–PL federated game (THEORY M8; [Thesis] §3.3 after Jin,
// Netrapalli and Jordan 2020). For the federated objective f̄ = (1/N) Σ_i f_i of pl_game.hpp, with
// Hessian blocks H = ∇²_θθ f̄, B = ∇²_θτ f̄ and ∇²_ττ f̄ = −Q (Q = (1/N) Σ_i C_iᵀC_i ≻ 0):
//   stationary point:        F̄(z) = 0;
//   second-order conditions: ∇²_ττ f̄ ≺ 0 and the Schur complement S = H − B(∇²_ττ f̄)⁻¹Bᵀ =
//                            H + BQ⁻¹Bᵀ ≻ 0 (sufficient for a strict local minimax point;
//                            ≼ 0 / ≽ 0 necessary);
//   local Nash point:        in addition H ≻ 0 (θ is a local minimiser of f̄(·, τ)), stronger.
// Because τ ↦ f̄(θ, τ) is a strongly concave quadratic, its maximiser τ*(θ) solves
// Qτ = (1/N) Σ_i C_iᵀ(D_iθ + e_i) and Φ(θ) = f̄(θ, τ*(θ)) has ∇Φ(θ) = ∇_θ f̄(θ, τ*(θ)) and
// ∇²Φ(θ) = S(θ): the strict local minimax points are exactly (θ, τ*(θ)) with θ a strict local
// minimiser of Φ, and the stationary points of f̄ are the roots of ∇Φ — p cubic equations, at
// most 3^p of them (Bézout).
//
// Timescales (Jin et al. Thm 28, the continuous-time linearisation of GDA with α₂ = ρα₁): at a
// stationary point with ∇²_ττ f̄ ≺ 0, GDA is stable for small steps iff every eigenvalue of
// diag(I_p, ρI_q) J̄ has a positive real part; as ρ → ∞ this holds iff S ≻ 0, so each strict local
// minimax point has a threshold ρ* above which it attracts GDA, and ρ* = 0 at a local Nash point.
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/pl_game.hpp"

namespace fedverify::theory {

// τ*(θ) = argmax_τ f̄(θ, τ).
Vector best_response(const PlGame& game, const Vector& theta);
// ∇Φ(θ) and ∇²Φ(θ) = S(θ) at (θ, τ*(θ)).
Vector reduced_gradient(const PlGame& game, const Vector& theta);
Matrix reduced_hessian(const PlGame& game, const Vector& theta);

// The second-order test at a point z = (θ, τ).
struct MinimaxPoint {
  Vector z;
  double residual = 0;         // ‖F̄(z)‖ (0 at a stationary point)
  double tau_curvature = 0;    // λ_max(∇²_ττ f̄) (< 0 required)
  double schur_min = 0;        // λ_min(S) (> 0: strict local minimax)
  double theta_curvature = 0;  // λ_min(∇²_θθ f̄) (> 0 too: local Nash)
  bool strict_local_minimax() const { return tau_curvature < 0 && schur_min > 0; }
  bool local_nash() const { return strict_local_minimax() && theta_curvature > 0; }
};
MinimaxPoint second_order_test(const PlGame& game, const Vector& z);

// Every stationary point of f̄ with θ in the box [−half_width, half_width]^p: Newton on ∇Φ = 0 from
// a grid of `grid`^p starts, converged to ‖∇Φ‖ ≤ 1e-13 (relative), duplicates (‖Δθ‖ ≤ 1e-8)
// merged, sorted by θ. At most 3^p by Bézout: the caller compares the count.
std::vector<MinimaxPoint> stationary_points(const PlGame& game, double half_width, int grid);

// Re of the least-stable eigenvalue of diag(I_p, ρ I_q) J: positive ⇔ GDA with step ratio ρ is
// stable at the point for small steps.
double gda_stability_margin(const Matrix& jacobian, int theta_dim, double ratio);
// The timescale threshold ρ* ∈ [0, max_ratio]: the smallest ratio with gda_stability_margin > 0
// on all of [ρ*, max_ratio] (scanned on a log grid of factor 1.02 from max_ratio down, then
// bisected to 1e-10 relative); 0 when stable at every scanned ratio down to 1e-6; +∞ when unstable
// at max_ratio.
double timescale_threshold(const Matrix& jacobian, int theta_dim, double max_ratio);

}  // namespace fedverify::theory
