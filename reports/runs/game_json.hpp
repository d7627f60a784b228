// `fedverify predict|simulate --algo fedgda|fedsgda`: the JSON objects the CLI prints for the
// game family (THEORY §10; AlgorithmFamily::game in theory/problems/algorithm_registry.hpp, which
// is how command_line.cpp routes here):
//   fedverify predict  --algo fedgda --problem GAME --gamma α₁ [--step-ratio α₂/α₁] [--local-steps
//   R] fedverify simulate --algo fedgda --problem GAME … --chains K --rounds T --burn-in B --seed S
//   fedverify simulate --algo fedsgda --problem LINEAR_IV --batch-size B' …
// GAME is a "quadratic-game" or "linear-iv" file (theory/problems/game_io.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "estimators/simulation/simulate_game.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"

namespace fedverify::reports {

// Fields: algorithm ("fedgda"), kind, alpha_theta, alpha_tau, local_steps, theta_dim, tau_dim,
// z_star (the federated equilibrium, M1), bias_first_order ((M2), z_F − z* to first order),
// mean_first_order (z* + bias), cov_first_order, spectral_radius (of the round map), and when it
// is < 1 mean_exact, cov_exact (M1); for a linear-iv game also theta_gmm (the GMM estimator of
// the averaged moments, M5) and g, b, w (the averaged moments).
nlohmann::json predict_game(const theory::GameProblem& problem, const theory::GdaSetting& setting);

// Fields: algorithm, kind, alpha_theta, alpha_tau, local_steps, batch_size (fedsgda), chains,
// rounds, burn_in, seed, diverged (divergence), the statistics of moments_to_json and
// chain_steps; no timing, so the same seed gives the same output.
nlohmann::json game_simulation_to_json(const theory::GameProblem& problem,
                                       const estimators::GameSimulationSpec& spec,
                                       const estimators::SimulationResult& result);

}  // namespace fedverify::reports
