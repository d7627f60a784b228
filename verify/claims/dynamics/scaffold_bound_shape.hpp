// The two parts of claim dynamics.scaffold-bound-shape (scaffold_bound_shape.cpp holds its card
// and registration): (i) the stationary level's scaling in γ and N (scaffold_bound_levels.cpp),
// (ii) the transient's rate and shape against the exact stacked chain
// (scaffold_bound_transient.cpp).
#pragma once

#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics::scaffold_bound {

inline constexpr const char* kId = "dynamics.scaffold-bound-shape";

// Equivalence margin of the level ratios (relative to the exact ratio) and of the simulated
// transient E_t (relative to the exact E_t), declared in the card.
inline constexpr double kMargin = 0.05;

// (i) The level ratios E_π‖x − x*‖² at (2γ, N)/(γ, N) and (γ, N)/(γ, 2N) as two rows, at α per
// test. Returns false (after appending a diverged row) when a run diverged.
bool add_level_ratio_rows(const Context& ctx, const theory::QuadraticProblem& q, double alpha,
                          ClaimResult& out);

// (ii) The transient row (the rate `claimed` against ρ(T), the simulated E_t against the exact
// one) and the trajectories figure of Scaffold, FedAvg and FedRR, at α per test.
void add_transient_row(const Context& ctx, const theory::QuadraticProblem& q,
                       const kit::RateClaim& claimed, double alpha, ClaimResult& out);

}  // namespace fedverify::claims::dynamics::scaffold_bound
