// The game family's runner (family_runner.hpp): z = (θ, τ) of a federated minimax game (fedgda,
// fedsgda; THEORY §10) on a game file (theory/problems/game_io.hpp). The closed forms and the
// JSON are game_json.hpp's.
#include <fmt/format.h>

#include "estimators/simulation/simulate_game.hpp"
#include "reports/runs/family_runner.hpp"
#include "reports/runs/game_json.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"

namespace fedverify::reports {
namespace {

theory::GdaSetting gda_setting_of(const RunInputs& inputs) {
  return theory::gda_setting(inputs.gamma, inputs.step_ratio, inputs.local_steps);
}

RunOutput predict_game_run(const RunInputs& inputs, const theory::AlgorithmDescriptor&) {
  const theory::GameProblem game = theory::load_game(inputs.problem_file);
  return {predict_game(game, gda_setting_of(inputs)), {}};
}

RunOutput simulate_game_run(const RunInputs& inputs, const SimulateInputs& s,
                            const theory::AlgorithmDescriptor& algorithm, bool,
                            const estimators::Progress& progress) {
  const theory::GameProblem game = theory::load_game(inputs.problem_file);
  estimators::GameSimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = gda_setting_of(inputs);
  spec.batch_size = inputs.batch_size;
  if (algorithm.reads(theory::AlgorithmOption::batch_size) && inputs.batch_size == 0) {
    throw InputError(fmt::format("--batch-size: required by --algo {}", algorithm.name()));
  }
  fill_run_sizes(spec, s);
  const estimators::SimulationResult r = estimators::simulate_game(game, spec, progress);
  return {game_simulation_to_json(game, spec, r), {}};
}

const bool registered = register_family_runner({.family = theory::AlgorithmFamily::game,
                                                .predict = predict_game_run,
                                                .simulate = simulate_game_run});

}  // namespace
}  // namespace fedverify::reports
