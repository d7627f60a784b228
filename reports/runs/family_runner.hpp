// The runs of `fedverify predict` and `simulate`, one runner per algorithm family (chain,
// personalised, game: theory::AlgorithmFamily). Each family registers its runner from its own
// file (chain_runner.cpp, personalised_runner.cpp, game_runner.cpp) with a namespace-scope
//     const bool registered = register_family_runner({...});
// (the layers are linked as whole archives, so the registrar is kept), and every front end runs
// an algorithm through predict_run and simulate_run, which look its family's runner up: no front
// end switches on a family or an algorithm's name. A new family is its runner file, its sampler
// and its closed forms (docs/ADDING_AN_ALGORITHM.md, "A new family").
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "reports/runs/run_inputs.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::reports {

// What a run gives its front end: the one JSON object, and warnings for stderr (predict's
// validity warning, validity_warning.hpp) that do not change it.
struct RunOutput {
  nlohmann::json result;
  std::vector<std::string> warnings;
};

struct FamilyRunner {
  theory::AlgorithmFamily family{};
  // The closed forms of `algorithm` (which has them, AlgorithmDescriptor::has_closed_forms).
  RunOutput (*predict)(const RunInputs& inputs,
                       const theory::AlgorithmDescriptor& algorithm) = nullptr;
  // A stationary run; `progress` receives (rounds done, rounds total); `control_variate` is the
  // parsed --control-variate (true only for a family that has the twin).
  RunOutput (*simulate)(const RunInputs& inputs, const SimulateInputs& run,
                        const theory::AlgorithmDescriptor& algorithm, bool control_variate,
                        const estimators::Progress& progress) = nullptr;
  // Its chains have the linearised twin (--control-variate linearised, THEORY (L3)).
  bool has_control_variate = false;
  // For --help: what --problem reads when it is not a problem file ("a game file"), and what
  // --gamma is when it is not γ ("alpha", "alpha_theta"); empty otherwise.
  std::string_view problem_file_help{};
  std::string_view gamma_help{};
};

// Adds `runner`. Returns true (for a namespace-scope registrar). Throws std::logic_error for a
// family registered twice or a runner without predict or simulate: a programming error, found at
// start-up.
bool register_family_runner(FamilyRunner runner);

// The runner of `family`; std::logic_error when none is registered (a layer not linked).
const FamilyRunner& family_runner(theory::AlgorithmFamily family);

// Every registered runner, in the order of theory::AlgorithmFamily.
std::vector<const FamilyRunner*> family_runners();

// `fedverify predict`: InputError naming --algo for an algorithm without closed forms (listing
// those that have them), then its family's predict.
RunOutput predict_run(const RunInputs& inputs, const theory::AlgorithmDescriptor& algorithm);

// `fedverify simulate`: --control-variate parsed (control_variate.hpp), then its family's
// simulate.
RunOutput simulate_run(const RunInputs& inputs, const SimulateInputs& run,
                       const theory::AlgorithmDescriptor& algorithm,
                       const estimators::Progress& progress = {});

}  // namespace fedverify::reports
