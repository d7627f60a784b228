// The JSON objects of the chain family's predict and simulate (docs/CLI.md: the fields are a
// contract), which the command line's runner (chain_runner.cpp) and the Python package print.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include <string>
#include <string_view>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::reports {

// The JSON object printed by `fedverify predict`: x_star, mean_first_order, bias_heterogeneity,
// bias_stochastic, cov_first_order, and for quadratic problems mean_exact, cov_exact.
nlohmann::json predict(const theory::Problem& problem, theory::Algorithm algorithm,
                       const theory::RunSetting& setting);

// The JSON object printed by `fedverify simulate`: mean, mean_mcse, cov, ess, rhat, samples,
// batch_rounds, diverged (and divergence, chain_steps, the spec). No timing: same seed ⇒
// identical output.
// The statistics of a stationary run as simulate prints them: mean, mean_mcse, cov, ess, rhat,
// samples, batch_rounds. Throws InputError naming a statistic that is not finite.
nlohmann::json moments_to_json(const estimators::MomentEstimate& moments);

// diverged (with divergence and samples 0) or the statistics of moments_to_json, and chain_steps.
nlohmann::json outcome_to_json(const estimators::SimulationResult& result);

nlohmann::json simulation_to_json(const estimators::SimulationSpec& spec,
                                  const estimators::SimulationResult& result);

// {"preset": name} when `algo`, the name the run was asked for, is a preset (its "algorithm" is
// then the preset's base, theory/problems/algorithm_preset.hpp); an empty object otherwise. The
// command line and the Python package echo a preset through this one function.
nlohmann::json preset_field(std::string_view algo);

// The setting fields of predict's and simulate's JSON beyond γ and H: "parameters" (the
// algorithm's own, theory/problems/algorithm_parameter.hpp, by key: a number or a list) when it
// declares any; for an algorithm that reads --server (fedopt, THEORY O0) "server", "client"
// (their specs, as parsed) and "participating" (S, N when all). N = `clients`. An empty object
// for any other algorithm.
nlohmann::json optimiser_fields(theory::Algorithm algorithm, const theory::RunSetting& setting,
                                int clients);

// The whole object of `fedverify predict` for a chain algorithm: predict(), the optimiser fields
// and the preset's name (run.preset), in that order.
nlohmann::json chain_prediction(const theory::Problem& problem,
                                const theory::ResolvedAlgorithm& run);

// predict, finite time (THEORY (T1), theory/closed_forms/trajectory.hpp): adds to `out` (a
// predict object with "x_star") "x0", "mse_exact" (E‖x_t − x*‖², t = 0 … rounds) and
// "mean_exact_t" (E x_t) from `x0` (none: x*). InputError naming --rounds or --x0.
void add_exact_trajectory(nlohmann::json& out, const theory::Problem& problem,
                          const theory::ResolvedAlgorithm& run, const std::optional<Vector>& x0,
                          int rounds);

// simulate --curve (THEORY (T1)'s curve, measured): {"rounds": [B + 1 … T], "mean", "mean_mcse"
// (per round, over the K independent chains), "mse", "mse_mcse" (E‖x_t − x*‖² and its standard
// error)} from the recorded trace of `result` (spec.record_trace).
nlohmann::json simulated_curve(const theory::Problem& problem,
                               const estimators::SimulationSpec& spec,
                               const estimators::SimulationResult& result);

// The whole object of `fedverify simulate` for a chain run: simulation_to_json(), the optimiser
// fields and `preset`'s name when it is one.
nlohmann::json chain_simulation(const theory::Problem& problem,
                                const estimators::SimulationSpec& spec,
                                const estimators::SimulationResult& result,
                                std::string_view preset);

}  // namespace fedverify::reports
