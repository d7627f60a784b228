// The inputs of a run — the problem, the algorithm and its setting, and a simulation's sizes — as
// every front end fills them (the command line from its flags, reports/cli/command_line.cpp; the
// run spec; docs/CLI.md documents each), and the checked parsing of the values left as text. The
// family runners (family_runner.hpp) take them; an error names the command-line flag.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {

// The inputs predict, simulate and conformance share (the problem, the algorithm and its
// settings).
struct RunInputs {
  std::string problem_file;
  std::string algorithm = "fedavg";
  double gamma = 0;
  int local_steps = 1;
  // Personalised FL (--algo l2gd, THEORY §7): the compressors of simulate.
  std::string uplink = "none", downlink = "none";
  // FedOpt (--algo fedopt, THEORY O0): the optimisers (theory/problems/optimiser.hpp) and S.
  std::string server = "sgd", client = "sgd";
  bool server_given = false, client_given = false;  // set after parsing (a preset refuses them)
  int participating = 0;                            // also L2GD's τ (simulate)
  // The parameters of presets (--algo fedprox --mu 0.1, theory/problems/algorithm_preset.hpp)
  // and algorithms (--algo fednova --client-steps 1,2,4, --algo l2gd --lambda 0.5, --algo fedgda
  // --step-ratio 2; algorithm_parameter.hpp): one option per key, by key, as written (a number
  // or a comma-separated list); empty when not given. resolve_run checks them against the
  // algorithm's declarations and the runner reads them from the resolved setting.
  std::map<std::string, std::optional<std::string>, std::less<>> parameter_values;
  std::string spec;  // --spec: never set (expanded before parsing, run_spec.hpp)
  // predict, finite time (THEORY (T1)): --rounds T adds the exact curve from --x0 (a JSON array
  // of d numbers; empty: x*). Chain algorithms only (predict_run refuses it for the others).
  std::optional<int> trajectory_rounds;
  std::string x0;
  double max_seconds = theory::limits::kDefaultClosedFormSeconds;
};

// simulate's own inputs: the run's sizes, seed, threads and estimators.
struct SimulateInputs {
  std::optional<int> chains;
  std::optional<int> rounds;
  std::optional<int> burn_in;
  std::optional<std::string> seed;  // parsed by parse_seed: CLI11 wraps "-5" into 2⁶⁴ − 5
  int threads = 0;
  std::string batch_rounds = "auto";  // parsed by parse_batch_rounds
  std::string coupling = "independent";
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;
  std::string control_variate = "none";  // parsed by reports::parse_control_variate
  // Finite time (THEORY (T1)): the simulated curve of every recorded round (chain algorithms),
  // from RunInputs::x0 (empty: every chain starts at 0, as without it).
  bool curve = false;
};

// The value of a simulate option that has no default; InputError naming `flag` when absent.
template <typename T>
T required(const std::optional<T>& v, const char* flag) {
  if (!v) throw InputError(fmt::format("{}: required by simulate", flag));
  return *v;
}

// The sizes of a stationary run (the chain and game families' specs, estimators/simulation/):
// --chains, --rounds, --burn-in and --seed required, the threads, batch length and memory budget.
template <typename Spec>
void fill_run_sizes(Spec& spec, const SimulateInputs& s);

// A seed is a decimal integer in [0, 2⁶⁴ − 1]; anything else (a sign, overflow, trailing text)
// is an error rather than a silently different seed.
std::uint64_t parse_seed(const std::string& text, const char* flag);

// --batch-rounds: "auto" (the default, estimators::kAutoBatchRounds; 0 means the same) or a batch
// length in rounds, a decimal integer (its range is checked by simulate against T − B).
int parse_batch_rounds(const std::string& text);

// The values of a parameter option (--client-steps 1,2,4; --mu 0.3): one number or several
// separated by commas. Throws InputError naming `flag` for anything else.
std::vector<double> parse_number_list(const std::string& text, const std::string& flag);

// The run --algo names (a registered algorithm, or a preset resolved to its base algorithm with
// its optimisers) with γ, H, FedOpt's optimisers and S (parsed here: a bad spec names --server or
// --client, a bad preset parameter its flag).
theory::ResolvedAlgorithm resolve_run(const RunInputs& o);

// The descriptor of the algorithm --algo names (a preset's base), before its setting is resolved:
// what the front end needs to pick the options and the runner. InputError naming --algo for an
// unknown name.
const theory::AlgorithmDescriptor& algorithm_descriptor(const RunInputs& o);

// resolve_run(o).step.
theory::RunSetting run_setting(const RunInputs& o);

template <typename Spec>
void fill_run_sizes(Spec& spec, const SimulateInputs& s) {
  spec.chains = required(s.chains, "--chains");
  spec.rounds = required(s.rounds, "--rounds");
  spec.burn_in = required(s.burn_in, "--burn-in");
  spec.seed = parse_seed(required(s.seed, "--seed"), "--seed");
  spec.threads = s.threads;
  spec.batch_rounds = parse_batch_rounds(s.batch_rounds);
  spec.memory_budget = s.memory_budget;
}

}  // namespace fedverify::reports
