#include <fmt/format.h>

#include <optional>

#include "estimators/simulation/simulate.hpp"
#include "estimators/simulation/simulate_game.hpp"
#include "reports/cli/commands.hpp"
#include "reports/cli/control_variate.hpp"
#include "reports/cli/game_command.hpp"
#include "reports/cli/l2gd_command.hpp"
#include "reports/cli/run_commands.hpp"
#include "reports/report/progress.hpp"
#include "reports/report/thread_limit.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// The sizes of a stationary run, shared by the chain and game families' specs.
template <typename Spec>
void fill_run(Spec& spec, const SimulateOptions& s) {
  spec.chains = required(s.chains, "--chains");
  spec.rounds = required(s.rounds, "--rounds");
  spec.burn_in = required(s.burn_in, "--burn-in");
  spec.seed = parse_seed(required(s.seed, "--seed"), "--seed");
  spec.threads = s.threads;
  spec.batch_rounds = parse_batch_rounds(s.batch_rounds);
  spec.memory_budget = s.memory_budget;
}

int simulate_game_command(const CommonOptions& o, const SimulateOptions& s,
                          const theory::AlgorithmDescriptor& algorithm) {
  const theory::GameProblem game = theory::load_game(o.problem_file);
  estimators::GameSimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = theory::gda_setting(o.gamma, o.step_ratio, o.local_steps);
  spec.batch_size = o.batch_size;
  if (algorithm.reads(theory::AlgorithmOption::batch_size) && o.batch_size == 0) {
    throw InputError(fmt::format("--batch-size: required by --algo {}", algorithm.name()));
  }
  fill_run(spec, s);
  reports::ProgressLine progress("simulate", "rounds");
  const estimators::SimulationResult r = estimators::simulate_game(game, spec, progress.callback());
  progress.finish();
  print_result(reports::game_simulation_to_json(game, spec, r));
  return 0;
}

}  // namespace

int simulate_command(const CommonOptions& o, const SimulateOptions& s,
                     const theory::AlgorithmDescriptor& algorithm) {
  const bool twin = reports::parse_control_variate(s.control_variate, algorithm);
  const ThreadLimit limit(s.threads);  // also the closed forms' parallel regions
  if (algorithm.family == theory::AlgorithmFamily::game)
    return simulate_game_command(o, s, algorithm);
  const auto problem = theory::load_problem(o.problem_file);
  if (algorithm.family == theory::AlgorithmFamily::personalised) {
    reports::L2gdSimulateOptions l;
    l.lambda = require_lambda(o);
    l.p = o.p;
    l.alpha = o.gamma;
    l.chains = required(s.chains, "--chains");
    l.iterations = required(s.rounds, "--rounds");
    l.seed = parse_seed(required(s.seed, "--seed"), "--seed");
    l.threads = s.threads;
    l.uplink = reports::parse_compressor(o.uplink, "--uplink");
    l.downlink = reports::parse_compressor(o.downlink, "--downlink");
    l.participating = o.participating;
    l.memory_budget = s.memory_budget;
    l.algorithm = o.algorithm;
    print_result(reports::simulate_l2gd(*problem, l));
    return 0;
  }
  estimators::SimulationSpec spec;
  spec.algorithm = algorithm.algorithm;
  spec.step = step_setting(o);
  fill_run(spec, s);
  if (s.coupling == "shared") {
    spec.coupling = theory::NoiseCoupling::shared;
  } else if (s.coupling != "independent") {
    throw InputError(fmt::format("--noise: expected independent or shared, got \"{}\"",
                                 theory::limits::quote_input(s.coupling)));
  }
  // --control-variate linearised: the twin's exact mean first (a refusal costs no simulation).
  std::optional<Vector> linearised_mean;
  if (twin) {
    linearised_mean = theory::linearised_stationary_mean(*problem, spec.algorithm, spec.step);
    spec.linearised_twin = true;
  }
  reports::ProgressLine progress("simulate", "rounds");
  const estimators::SimulationResult r = estimators::simulate(*problem, spec, progress.callback());
  progress.finish();
  nlohmann::json out = reports::simulation_to_json(spec, r);
  out.update(reports::optimiser_fields(spec.algorithm, spec.step, problem->num_clients()));
  out.update(reports::preset_field(o.algorithm));
  if (linearised_mean && !r.diverged) {
    out.update(reports::control_variate_fields(r, *linearised_mean));
  }
  print_result(out);
  return 0;
}

}  // namespace fedverify::reports
