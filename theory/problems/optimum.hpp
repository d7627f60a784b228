// The minimiser x* of f = (1/N) Σ_c f_c and the constants the theory is stated in.
#pragma once

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// x* by damped Newton (a LinearSaProblem: the root of its mean field, THEORY (L0)) (backtracking
// Armijo line search), started at 0. Converges to ‖∇f(x*)‖ ≤ 1e-14 · max(1, ‖∇f(0)‖) with ∇²f(x*)
// positive definite to working precision (λ_min > 64ε·λ_max, and the curvature along the λ_min
// direction has not fallen below √ε times its value at the start), or throws InputError: e.g.
// separable logistic data without ℓ2 regularisation has no minimiser, although ∇f decays to
// round-off along a ray.
Vector minimizer(const Problem& problem);

struct ProblemConstants {
  Vector x_star;
  Matrix hessian_at_optimum;  // 𝐇 = ∇²f(x*)
  double mu = 0;              // strong convexity of the f_c (global bound, Problem)
  double l = 0;               // smoothness of the f_c (global bound, Problem)
  double mu_local = 0;        // min_c λ_min(∇²f_c(x*))
  double l_local = 0;         // max_c λ_max(∇²f_c(x*))
  double zeta2 = 0;           // ζ²  = (1/N) Σ_c ‖∇f_c(x*)‖²               THEORY (N3)
  double zeta2_second = 0;  // ζ₂² = (1/N) Σ_c ‖∇²f_c(x*) − 𝐇‖²_op         THEORY (N3)
  double sigma_star2 = 0;  // σ*² = tr C̄                                THEORY (N4)
};

ProblemConstants problem_constants(const Problem& problem);

}  // namespace fedverify::theory
