// RFA's deterministic fixed point and its limit as γ → 0 (THEORY (A6)), for the geometric median
// of theory/problems/robust_aggregation.hpp.
#pragma once

#include "theory/base/linalg.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// THEORY (A6), the limit of RFA's deterministic fixed point (exact gradients, converged median)
// as γ → 0: the point x̂ where the clients' gradients have geometric median 0,
//   Σ_c p_c ∇f_c(x̂)/‖∇f_c(x̂)‖ = 0,
// solved by damped Newton (halving until ‖F‖ decreases: F is bounded, a full step may overshoot)
// on that equation from x* (the mean's root), with its Jacobian
// Σ_c p_c (I − u_c u_cᵀ)∇²f_c/‖∇f_c‖, u_c = ∇f_c/‖∇f_c‖. Throws InputError naming --problem when
// a client's gradient vanishes on the way (x̂ is then not characterised by this equation) or
// Newton's method does not converge.
Vector geometric_median_root(const Problem& problem);

// RFA's deterministic fixed point at step γ: the x with x = GM{y_c(x)}, y_c(x) client c's H
// exact-gradient steps from x, GM the smoothed median of geometric_median with `iterations` and ν.
// Solved by Newton's method with a central-difference Jacobian (its error O(h²) slows Newton to
// linear convergence, not its limit) from geometric_median_root; InputError naming --gamma when it
// does not converge to ‖x − GM{y_c(x)}‖ ≤ 1e-14 (‖x‖ + 1).
Vector rfa_fixed_point(const Problem& problem, double gamma, int steps, int iterations, double nu);

}  // namespace fedverify::theory
