// The exact stationary mean of the coupled linearised twin (THEORY (L3)): the mean that the
// control-variate estimate mean(x − y) + m_lin adds back.
//
// The twin y runs the per-sample linearisation at x*, g_lin(y; Z) = ∇F(x*; Z) + ∇²F(x*; Z)(y − x*),
// with the chain's own draws: a linear recursion whose random coefficients (sample indices, client
// subsets) are independent of the state. So E[y_t] follows the recursion of the algorithm on the
// mean field ḡ_c(y) = ∇f_c(x*) + ∇²f_c(x*)(y − x*) = A_c(y − θ_c), i.e. the deterministic
// algorithm on the quadratic problem with
//   A_c = ∇²f_c(x*),   θ_c = x* − A_c⁻¹ ∇f_c(x*)                                  THEORY (L3)
// and E_π[y] = m_lin is that problem's exact stationary mean (theory::exact_moments, noise 0:
// the mean of a linear chain does not depend on its additive noise).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// The mean-field linearisation at x_star as a noiseless quadratic problem (A_c, θ_c above).
// Throws InputError naming --control-variate when some A_c is not positive definite (θ_c, and a
// quadratic problem, need it) or not finite.
QuadraticProblem linearised_problem(const Problem& problem, const Vector& x_star);

// The twin's own law (THEORY (L3)): the per-sample linearisation at x_star as a linear-sa
// problem, sample j of client c with A_j = ∇²F(x*; j), b_j = A_j x* − ∇F(x*; j), so that
// A_j y − b_j = g_lin(y; j), drawn as the chain draws (uniform, B with replacement). For logistic
// regression (signed rows ã_j = s_j a_j, t_j = ã_jᵀx*, h_j = φ''(t_j) > 0, α_j = −φ'(t_j) + h_j
// t_j) A_j = h_j ã_j ã_jᵀ + λI and b_j = α_j ã_j: the least-squares form with features √h_j ã_j,
// targets α_j/√h_j and l2 = λ. The twin y of a chain run with its linearised twin is this
// problem's chain, so every exact law of it (FedAvg's and Scaffold's trajectories, THEORY (T1))
// is the twin's: the control variate ‖y_t − x*‖² of a finite-time curve has an exact mean.
LinearSaProblem per_sample_linearisation(const LogisticProblem& problem, const Vector& x_star);

// m_lin for `algorithm` with `setting`: for a quadratic problem, its own exact mean (the problem is
// its own linearisation, so this is exact_moments(problem).mean bit for bit); otherwise the exact
// mean of linearised_problem(problem, minimizer(problem)). Throws InputError naming
// --control-variate for an algorithm without exact moments, or FedOpt with an optimiser that is
// not linear (has_closed_forms), and naming --gamma when the linearised round map does not
// contract.
Vector linearised_stationary_mean(const Problem& problem, Algorithm algorithm,
                                  const RunSetting& setting);

}  // namespace fedverify::theory
