// Q, the certified bound on the third derivative that the finite-time bounds of Scaffold and
// FedAvg are stated with (THEORY (S5)): Q ≥ sup_x max_c ‖∇³f_c(x)‖, the norm of the
// symmetric trilinear form, sup over unit u of |∇³f_c(x)[u, u, u]| (for a symmetric form this is
// also its sup over three unit vectors: Banach 1938). It holds over all of ℝ^d, so over whatever
// region the chains visit.
#pragma once

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// Quadratic, linear-sa and least-squares problems: 0 (the field is affine). Logistic regression,
// f_c(x) = (1/n_c) Σ_j φ(y_j a_jᵀx) + (λ/2)‖x‖²: with |φ'''| ≤ 1/(6√3) (φ''' = p(1 − p)(1 − 2p),
// largest at p = (3 ± √3)/6),
//   |∇³f_c(x)[u, u, u]| = |(1/n_c) Σ_j φ'''(·) y_j (a_jᵀu)³| ≤ (1/(6√3)) max_j ‖a_j‖ λ_max(S_c),
// S_c = (1/n_c) Σ_j a_j a_jᵀ, since |a_jᵀu|³ ≤ ‖a_j‖ (a_jᵀu)² for ‖u‖ = 1; Q is the largest over
// the clients.                                                                   THEORY (S5)
double third_derivative_bound(const Problem& problem);

// max_s |φ'''(s)| = 1/(6√3) for the logistic loss φ(s) = log(1 + e^{−s}).
inline constexpr double kLogisticThirdDerivativeMax = 0.09622504486493763;

}  // namespace fedverify::theory
