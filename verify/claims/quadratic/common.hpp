// Shared by the quadratic claims checked exactly (no Monte Carlo): on quadratic problems with
// additive Gaussian noise the chains are linear-Gaussian, so their stationary moments solve a
// Lyapunov equation (theory/closed_forms/exact.hpp) and can be compared with the expansions.
#pragma once

#include <vector>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/kit/remainder_order.hpp"

namespace fedverify::claims::quadratic {

// Confidence level of the log–log slope intervals (declared with the remainder-order row).
using kit::kSlopeAlpha;

// A remainder counts as exactly zero when it is below this many ulps of the solution's scale
// times the condition number of the round map (backward-stable solves: error ≲ n κ ε).
inline constexpr double kRoundOffUlps = 256.0;

// γL from 1e-4 to 1e-1, geometric: 5 points on the quick grid, 10 otherwise.
std::vector<double> step_grid(double l, bool quick);

// kRoundOffUlps · κ · ε · max(1, ‖x*‖): below it a difference of exact moments is round-off.
double round_off_zero(const theory::QuadraticProblem& q, const theory::ExpansionCoefficients& k);

}  // namespace fedverify::claims::quadratic
