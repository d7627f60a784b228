// Shared by the linear-sa claims (THEORY (L0)–(L2)): exact moments of an algorithm on a linear
// stochastic approximation problem (theory::AlgorithmTheory::exact_linear_sa), the step grid, and
// the round-off below which a remainder is zero.
#pragma once

#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::linear_sa {

// The exact stationary mean and covariance of x (THEORY (L1)); throws std::logic_error for an
// algorithm without them.
theory::ExactMoments exact(const theory::LinearSaProblem& problem, theory::Algorithm algorithm,
                           const theory::RunSetting& step);

// γL on a geometric grid over [1e-3, 1e-1] (4 points quick, 7 full), L the problem's per-sample
// constant (LinearSaProblem::smoothness).
std::vector<double> step_grid(double l, bool quick);

// A remainder below this is a round-off zero: the moments come from LU and Schur solves whose
// condition is at most 1/(γμH) ≤ 1e5 on the grid, of data of size ‖x*‖ + 1, so their error is
// ≤ 1e5 · 2.2e-16 · (‖x*‖ + 1) ≈ 2e-11 (‖x*‖ + 1); the threshold keeps a factor 50 over it.
double round_off_zero(const theory::LinearSaProblem& problem);

// The simulation rows: 40 replications (G − 1 ≥ d(d+1)/2 = 36 for the covariance test at d = 8)
// of 16 chains, 2000 (quick) or 4000 recorded rounds, TOSTs within 5 % (Monte Carlo against an
// exact law: no remainder to allow for).
inline constexpr int kSimulationReplications = 40;
inline constexpr int kSimulationChains = 16;
inline constexpr double kSimulationMargin = 0.05;
// The card values of a claim with a simulation row: ${replications}, ${chains}, ${rounds}, ${alpha}
// (the row's α per test) and ${margin}.
CardValues simulation_card_values(double alpha);

// A simulation of `algorithm` on `np` at `step`, with the budget above, against its exact mean and
// covariance (kit/stationary_run.hpp, exact_moments_row), chains started at the exact mean, seed
// kit::row_seed(ctx, claim_id, setting). Its sampler comes from kit::sampler_options, so a planted
// round (Context::round_for) reaches it.
Row simulated_row(const Context& ctx, const char* claim_id, const NamedProblem& np,
                  theory::Algorithm algorithm, const theory::RunSetting& step, double alpha);

}  // namespace fedverify::claims::linear_sa
