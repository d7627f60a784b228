// The personalised-FL claims take the formula they compare with as a parameter, so a test can
// plant a wrong one (verify/planted/claim_perturbations.hpp) and show that the claim then fails.
// The registered claims pass the real formulas.
#pragma once

#include <functional>

#include "theory/algorithms/l2gd_compressed.hpp"
#include "theory/algorithms/l2gd_plus.hpp"
#include "theory/closed_forms/personalised.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::personalised {

// The (P3) bound on E‖x^k − x(λ)‖² from its constants and ‖x⁰ − x(λ)‖² (theory::l2gd_bound).
using L2gdBound = std::function<double(const theory::L2gdConstants&, double initial_error2, int k)>;

// personalised.l2gd-rate (verify/claims/personalised/l2gd_rate.cpp).
ClaimResult l2gd_rate(const Context& ctx, const L2gdBound& bound);

// The averaging probability p*(λ, L) of (P4) (theory::optimal_probability).
using ProbabilityRule = std::function<double(double lambda, double l)>;

// personalised.communication (verify/claims/personalised/communication.cpp).
ClaimResult communication(const Context& ctx, const ProbabilityRule& p_star);

// personalised.communication-limits (verify/claims/personalised/communication_limits.cpp).
ClaimResult communication_limits(const Context& ctx, const ProbabilityRule& p_star);

// The ERM of personalised.local-gd-myth made from a quadratic problem (the registered claim:
// noise_free, every client's noise removed, so that Local GD runs on full local gradients).
using ProblemTransform = std::function<theory::QuadraticProblem(const theory::QuadraticProblem&)>;
theory::QuadraticProblem noise_free(const theory::QuadraticProblem& q);

// personalised.local-gd-myth (verify/claims/personalised/local_gd_myth.cpp).
ClaimResult local_gd_myth(const Context& ctx, const ProblemTransform& erm);

// The λ → ∞ limit of x(λ), one column per client (theory::global_optimum_replicated, (P1)).
using GlobalLimit = std::function<Matrix(const theory::Problem&)>;

// personalised.optimum-limits (verify/claims/personalised/optimum_limits.cpp).
ClaimResult optimum_limits(const Context& ctx, const GlobalLimit& global_limit);

// The exact branches of the variance-reduced family (theory::variance_reduced_branches, (P7)).
using VarianceReducedBranches = std::function<std::vector<theory::AffineBranch>(
    const theory::QuadraticProblem&, const theory::L2gdSetting&, const theory::FiniteSumSplit&,
    const theory::VarianceReducedRule&)>;

// personalised.variance-reduced (verify/claims/personalised/variance_reduced.cpp).
ClaimResult variance_reduced(const Context& ctx, const VarianceReducedBranches& branches);

// Compressed L2GD's (P8) constants (theory::compressed_l2gd_constants).
using CompressedConstants = std::function<theory::CompressedL2gdConstants(
    const theory::Problem&, const theory::L2gdSetting&, const Matrix& x_lambda, double omega,
    double omega_master, bool own_model_exact)>;

// personalised.compressed-l2gd (verify/claims/personalised/compressed_l2gd.cpp).
ClaimResult compressed_l2gd(const Context& ctx, const CompressedConstants& constants);

// The λ of the personalised objective that Local GD with full averaging (L2GD at θ = 1) solves,
// from n, p and α (the registered claim: np/α).
using PermLambda = std::function<double(int clients, double p, double alpha)>;

// personalised.local-methods-perm (verify/claims/personalised/local_methods_perm.cpp).
ClaimResult local_methods_perm(const Context& ctx, const PermLambda& lambda_of);

}  // namespace fedverify::claims::personalised
