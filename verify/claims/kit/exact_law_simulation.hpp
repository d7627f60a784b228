// The simulation row of a claim whose algorithm has an exact stationary law: replications of
// chains started at the exact mean, compared with the law by exact_moments_row (Hotelling tests
// of the mean and of the covariance entries, TOSTs within a margin). One place for the budget
// and the row's data (used by optimisers.dp-fedavg, reshuffled-epochs, fednova-random-steps).
#pragma once

#include <string>

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::kit {

struct ExactLawSimulation {
  const char* claim_id = nullptr;  // the row's seed is row_seed(ctx, claim_id, setting)
  std::string setting;             // the row's setting (and seed key)
  std::string predicted;           // the row's predicted text
  theory::Algorithm algorithm;
  theory::RunSetting step;
  int replications = 20;
  int chains_per_replication = 32;
  int rounds_quick = 1000;  // recorded rounds per chain, quick protocol
  int rounds = 2000;        // and full
  double margin = 0.05;     // TOST margin (relative)
  double alpha = 0;         // per test
};

// Simulates `simulated` (normally the problem of `law`; a perturbation may pass another) with
// spec's budget, started at law.mean, burn-in residual 1e-3 of the law's contraction (only the
// covariance has a transient), and returns exact_moments_row's row with the setting, predicted
// text, data gamma, chains, rounds, seed, and the mean's simulated gate; diverged_row when a
// chain diverged.
Row exact_law_row(const Context& ctx, const theory::Problem& simulated,
                  const ExactLawSimulation& spec, const theory::ExactMoments& law);

}  // namespace fedverify::claims::kit
