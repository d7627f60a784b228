// The chain family's runner (family_runner.hpp): a global model in ℝ^d (sgd, fedavg, scaffold,
// fedrr, fedopt and its presets, fednova; THEORY §1–§9). predict prints the expansions and, on
// quadratic and linear-sa problems, the exact moments (chain_json.hpp); simulate runs the chain
// engine (estimators/simulation/simulate.hpp), with the linearised twin on request.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "reports/runs/chain_json.hpp"
#include "reports/runs/control_variate.hpp"
#include "reports/runs/family_runner.hpp"
#include "reports/runs/validity_warning.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// --x0 (predict's curve and simulate's chains start there): a JSON array of the problem's d
// numbers; none when not given.
std::optional<Vector> start_of(const RunInputs& inputs, const theory::Problem& problem) {
  if (inputs.x0.empty()) return std::nullopt;
  Vector x0 = theory::vector_from_json(theory::parse_json_text(inputs.x0, "--x0"), "--x0");
  if (x0.size() != problem.dim()) {
    throw InputError(fmt::format("--x0: expected {} numbers (the problem's dimension), got {}",
                                 problem.dim(), x0.size()));
  }
  return x0;
}

// Each runner resolves the setting before it reads the file: an option the algorithm does not
// read is the error, whatever the file (the order of the command line's refusals, docs/CLI.md).
RunOutput predict_chain(const RunInputs& inputs, const theory::AlgorithmDescriptor&) {
  const theory::ResolvedAlgorithm run = resolve_run(inputs);
  const auto problem = theory::load_problem(inputs.problem_file);
  RunOutput out{chain_prediction(*problem, run), {}};
  if (inputs.trajectory_rounds) {
    add_exact_trajectory(out.result, *problem, run, start_of(inputs, *problem),
                         *inputs.trajectory_rounds);
  }
  // γHL ≫ 1: the first-order fields mean nothing (validity_warning.hpp); the result unchanged.
  const std::string warning = first_order_validity_warning(*problem, run.step);
  if (!warning.empty()) out.warnings.push_back(warning);
  return out;
}

theory::NoiseCoupling parse_coupling(const std::string& text) {
  if (text == "shared") return theory::NoiseCoupling::shared;
  if (text != "independent") {
    throw InputError(fmt::format("--noise: expected independent or shared, got \"{}\"",
                                 theory::limits::quote_input(text)));
  }
  return theory::NoiseCoupling::independent;
}

RunOutput simulate_chain(const RunInputs& inputs, const SimulateInputs& s,
                         const theory::AlgorithmDescriptor&, bool control_variate,
                         const estimators::Progress& progress) {
  const theory::ResolvedAlgorithm run = resolve_run(inputs);
  const auto problem = theory::load_problem(inputs.problem_file);
  estimators::SimulationSpec spec;
  spec.algorithm = run.algorithm;
  spec.step = run.step;
  fill_run_sizes(spec, s);
  spec.coupling = parse_coupling(s.coupling);
  // --control-variate linearised: the twin's exact mean first (a refusal costs no simulation).
  std::optional<Vector> linearised_mean;
  if (control_variate) {
    linearised_mean = theory::linearised_stationary_mean(*problem, spec.algorithm, spec.step);
    spec.linearised_twin = true;
  }
  if (const std::optional<Vector> x0 = start_of(inputs, *problem)) spec.initial_state = *x0;
  if (s.curve && spec.chains < 2) {
    throw InputError("--curve: needs --chains >= 2 (its standard errors are over the chains)");
  }
  spec.record_trace = s.curve;
  const estimators::SimulationResult r = estimators::simulate(*problem, spec, progress);
  RunOutput out{chain_simulation(*problem, spec, r, run.preset), {}};
  if (s.curve && !r.diverged) out.result["curve"] = simulated_curve(*problem, spec, r);
  if (linearised_mean && !r.diverged) {
    out.result.update(control_variate_fields(r, *linearised_mean));
  }
  return out;
}

const bool registered = register_family_runner({.family = theory::AlgorithmFamily::chain,
                                                .predict = predict_chain,
                                                .simulate = simulate_chain,
                                                .has_control_variate = true});

}  // namespace
}  // namespace fedverify::reports
