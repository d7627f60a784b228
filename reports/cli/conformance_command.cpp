#include "reports/cli/run_commands.hpp"
#include "reports/conformance/conformance.hpp"
#include "reports/conformance/per_model.hpp"
#include "reports/report/progress.hpp"
#include "reports/runs/chain_json.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

int conformance_command(const RunInputs& o, const ConformanceOptions& c,
                        const theory::AlgorithmDescriptor& algorithm) {
  const auto problem = theory::load_problem(o.problem_file);
  const auto* quadratic = dynamic_cast<const theory::QuadraticProblem*>(problem.get());
  if (quadratic == nullptr) {
    throw InputError("--problem: conformance needs a quadratic problem (its laws are exact there)");
  }
  reports::ConformanceSpec spec;
  spec.command = c.command;
  spec.algorithm = algorithm.algorithm;
  spec.step = run_setting(o);
  if (!c.trajectory.empty()) spec.trajectory = parse_precision(c.trajectory, "--trajectory");
  spec.chains = c.chains.value_or(spec.trajectory ? kTrajectoryChains
                                  : c.per_model   ? kPerModelChains
                                                  : spec.chains);
  spec.rounds = c.rounds.value_or(spec.trajectory ? kTrajectoryRounds : spec.rounds);
  spec.burn_in = c.burn_in;
  spec.one_round_chains = c.one_round_chains;
  spec.alpha = c.alpha;
  spec.timeout_seconds = c.timeout;
  spec.pipes = c.protocol_fds ? ProtocolPipes::fds : ProtocolPipes::stdio;
  spec.per_model = c.per_model;
  spec.workers = c.workers;
  spec.weight_decay = c.weight_decay;
  spec.seed = parse_seed(required(c.seed, "--seed"), "--seed");
  reports::ProgressLine progress("conformance", "rounds");
  spec.progress = progress.callback();
  const reports::ConformanceResult r = reports::run_conformance(*quadratic, spec);
  progress.finish();
  nlohmann::json out = reports::conformance_to_json(spec, r);
  out.update(reports::preset_field(o.algorithm));
  print_result(out);
  return r.passed ? 0 : 1;
}

}  // namespace fedverify::reports
