// The game family's runner (family_runner.hpp): z = (θ, τ) of a federated minimax game (fedgda,
// fedsgda; THEORY §10) on a game file (theory/problems/game_io.hpp). The closed forms and the
// JSON are game_json.hpp's.
#include "estimators/simulation/simulate_game.hpp"
#include "reports/runs/family_runner.hpp"
#include "reports/runs/game_json.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_parameters.hpp"
#include "theory/problems/gda_setting.hpp"

namespace fedverify::reports {
namespace {

RunOutput predict_game_run(const RunInputs& inputs, const theory::AlgorithmDescriptor&) {
  const theory::GdaSetting setting = theory::gda_setting(run_setting(inputs));  // the setting first
  const theory::GameProblem game = theory::load_game(inputs.problem_file);
  return {predict_game(game, setting), {}};
}

RunOutput simulate_game_run(const RunInputs& inputs, const SimulateInputs& s,
                            const theory::AlgorithmDescriptor& algorithm, bool,
                            const estimators::Progress& progress) {
  const theory::RunSetting run = run_setting(inputs);
  const theory::GameProblem game = theory::load_game(inputs.problem_file);
  estimators::GameSimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = theory::gda_setting(run);  // α₁ = γ, α₂ = α₁ · step ratio, R = H
  // FedSGDA's minibatch (required where declared: resolve_run refused its absence); 0 = full.
  if (algorithm.parameter(theory::kBatchSizeKey) != nullptr) {
    spec.batch_size = static_cast<int>(theory::parameter_value(run, theory::kBatchSizeKey));
  }
  fill_run_sizes(spec, s);
  const estimators::SimulationResult r = estimators::simulate_game(game, spec, progress);
  return {game_simulation_to_json(game, spec, r), {}};
}

const bool registered = register_family_runner({.family = theory::AlgorithmFamily::game,
                                                .predict = predict_game_run,
                                                .simulate = simulate_game_run,
                                                .problem_file_help = "a game file",
                                                .gamma_help = "alpha_theta"});

}  // namespace
}  // namespace fedverify::reports
