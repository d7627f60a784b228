// simulate_game(): the game family's simulate (THEORY §10) — FedGDA on a quadratic game (its
// additive Gaussian gradient noise) or FedSGDA on a linear-IV game (minibatch gradients), as K
// independent chains of z = (θ, τ), with the stationary moments of simulate() (mean, MCSE,
// covariance, ESS, R̂ from the same estimators/statistics/moments accumulator).
#pragma once

#include <cstdint>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"

namespace fedverify::estimators {

struct GameSimulationSpec {
  theory::Algorithm algorithm{"fedgda"};  // fedgda or fedsgda
  theory::GdaSetting step;
  int batch_size = 0;  // FedSGDA's B (--batch-size, ≥ 1); 0 for FedGDA
  int chains = 256;
  int rounds = 1000;  // T, including burn-in
  int burn_in = 100;
  std::uint64_t seed = 1;
  int threads = 0;
  int batch_rounds = kAutoBatchRounds;
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;
};

// Throws InputError naming the flag for a bad spec, for fedgda on a linear-IV game (deterministic:
// "use predict, or fedsgda") and for fedsgda on a quadratic game (no data to sample). A chain
// leaving double range is reported in the result (diverged, divergence), as simulate() does.
SimulationResult simulate_game(const theory::GameProblem& problem, const GameSimulationSpec& spec,
                               const Progress& progress = {});

}  // namespace fedverify::estimators
