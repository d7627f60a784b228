// The default linear stochastic approximation problems of the linear-sa claims (THEORY (L0)–(L2),
// issue 26 item 4): federated TD(0) on a Garnet MDP (SCAFFLSA's sizes: 30 states, 2 actions,
// branching 2, 8 features, ρ = 0.95; N = 10 clients with kernel heterogeneity 10 and reward
// heterogeneity 1; theory/problems/garnet.hpp) and least squares on scikit-learn's diabetes table
// (442 × 10, N = 10 Dirichlet(0.5) clients, λ = 0.1; theory/problems/diabetes_data.hpp). Both
// have state-dependent (multiplicative) noise; the TD one a non-symmetric Ā.
#pragma once

#include "theory/problems/linear_sa_problem.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims {

// (bugprone-exception-escape: nlohmann::json's moves are not declared noexcept, as in claim.hpp.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LinearSaDefaults {
  NamedProblem garnet_td;  // "td-garnet": d = 8, N = 10, B = 1
  NamedProblem diabetes;   // "ls-diabetes": d = 10, N = 10, B = 1
  // "td-garnet-small": td-garnet's generator with 10 states, 3 features and N = 4 clients, for the
  // exhaustive stability map (maps.td-stability), whose exact second-moment operator has
  // (dN)(dN + 1)/2 = 78 dimensions for Scaffold here (td-garnet's would have 3240).
  NamedProblem garnet_td_small;
  // "ls-digits": least squares on scikit-learn's digits table (1797 × 64 pixels, z-scored, the
  // constant pixels only centred, plus an intercept: d = 65; target the digit, z-scored), N = 100
  // clients by a Dirichlet(0.5) split of the ten digits, λ = 0.1, B = 1: the catalogue's
  // N = 100, d ≥ 50 problem (issue 26 item 4).
  NamedProblem digits;
};

// Built on first use from the generators' presets; throws InputError naming the diabetes table
// when python3-sklearn's copy is missing.
const LinearSaDefaults& default_linear_sa_problems();

// Casts a linear-sa or least-squares NamedProblem (throws std::logic_error otherwise).
const theory::LinearSaProblem& as_linear_sa(const NamedProblem& p);

}  // namespace fedverify::claims
