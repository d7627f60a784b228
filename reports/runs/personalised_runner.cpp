// The personalised family's runner (family_runner.hpp): one model per client (l2gd, l2sgd,
// l2sgd+; THEORY §7). The closed forms and the JSON are personalised_json.hpp's.
#include <fmt/format.h>

#include "reports/runs/family_runner.hpp"
#include "reports/runs/personalised_json.hpp"
#include "theory/algorithms/l2gd.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

RunOutput predict_personalised(const RunInputs& inputs,
                               const theory::AlgorithmDescriptor& algorithm) {
  const theory::RunSetting run = run_setting(inputs);  // the setting first, as every runner
  const auto problem = theory::load_problem(inputs.problem_file);
  if (inputs.participating != 0) {
    throw InputError(
        fmt::format("--participating: only for simulate with --algo {}", algorithm.name()));
  }
  return {predict_l2gd(*problem, theory::l2gd_setting(run, *problem)), {}};
}

RunOutput simulate_personalised(const RunInputs& inputs, const SimulateInputs& s,
                                const theory::AlgorithmDescriptor&, bool,
                                const estimators::Progress&) {
  const theory::RunSetting run = run_setting(inputs);
  const auto problem = theory::load_problem(inputs.problem_file);
  L2gdSimulateOptions l;
  l.setting = theory::l2gd_setting(run, *problem);  // λ, p (given or p*), α = γ
  l.chains = required(s.chains, "--chains");
  l.iterations = required(s.rounds, "--rounds");
  l.seed = parse_seed(required(s.seed, "--seed"), "--seed");
  l.threads = s.threads;
  l.uplink = parse_compressor(inputs.uplink, "--uplink");
  l.downlink = parse_compressor(inputs.downlink, "--downlink");
  l.participating = inputs.participating;
  l.memory_budget = s.memory_budget;
  l.algorithm = inputs.algorithm;
  return {simulate_l2gd(*problem, l), {}};
}

const bool registered = register_family_runner({.family = theory::AlgorithmFamily::personalised,
                                                .predict = predict_personalised,
                                                .simulate = simulate_personalised,
                                                .gamma_help = "alpha"});

}  // namespace
}  // namespace fedverify::reports
