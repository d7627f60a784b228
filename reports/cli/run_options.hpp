// The options of a run as `fedverify predict`, `simulate` and `conformance` read them from the
// command line (command_line.cpp declares the flags, docs/CLI.md documents them), and the
// helpers every subcommand uses: checked parsing of the values CLI11 leaves as text, the step
// setting, and the one-line error and one-object result conventions (docs/CLI.md, exit codes).
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {

// The options predict, simulate and conformance share (the problem, the algorithm and its
// settings).
struct CommonOptions {
  std::string problem_file;
  std::string algorithm = "fedavg";
  double gamma = 0;
  int local_steps = 1;
  // Personalised FL (--algo l2gd, THEORY §7): λ, and p (default p* = λ/(λ + L)).
  std::optional<double> lambda;
  std::optional<double> p;
  std::string uplink = "none", downlink = "none";
  // FedOpt (--algo fedopt, THEORY O0): the optimisers (theory/problems/optimiser.hpp) and S.
  std::string server = "sgd", client = "sgd";
  bool server_given = false, client_given = false;  // set after parsing (a preset refuses them)
  int participating = 0;                            // also L2GD's τ (simulate)
  // The parameters of presets (--algo fedprox --mu 0.1, theory/problems/algorithm_preset.hpp)
  // and algorithms (--algo fednova --client-steps 1,2,4, algorithm_parameter.hpp): one option
  // per key, by key, as written (a number or a comma-separated list); empty when not given.
  std::map<std::string, std::optional<std::string>, std::less<>> parameter_values;
  // Games (--algo fedgda, fedsgda, THEORY M0): α₂/α₁ and FedSGDA's minibatch size.
  double step_ratio = 1.0;
  int batch_size = 0;
  std::string spec;  // --spec: never set (expanded before parsing, run_spec.hpp)
  double max_seconds = theory::limits::kDefaultClosedFormSeconds;
};

// simulate's own options: the run's sizes, seed, threads and estimators.
struct SimulateOptions {
  std::optional<int> chains;
  std::optional<int> rounds;
  std::optional<int> burn_in;
  std::optional<std::string> seed;  // parsed by parse_seed: CLI11 wraps "-5" into 2⁶⁴ − 5
  int threads = 0;
  std::string batch_rounds = "auto";  // parsed by parse_batch_rounds
  std::string coupling = "independent";
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;
  std::string control_variate = "none";  // parsed by reports::parse_control_variate
};

// conformance's own options: the implementation and the sizes of its two runs.
struct ConformanceOptions {
  std::string command;
  std::optional<std::string> seed;
  int chains = 256, rounds = 400, burn_in = 100, one_round_chains = 4000;
  double alpha = 0.01;
};

// λ of the personalised family; InputError naming --lambda when it was not given.
double require_lambda(const CommonOptions& o);

// The value of a simulate option that has no default; InputError naming `flag` when absent.
template <typename T>
T required(const std::optional<T>& v, const char* flag) {
  if (!v) throw InputError(fmt::format("{}: required by simulate", flag));
  return *v;
}

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
theory::ResolvedAlgorithm resolve_run(const CommonOptions& o);

// resolve_run(o).step.
theory::StepSetting step_setting(const CommonOptions& o);

// Every message goes to stderr as exactly one line: control characters in it (a newline in a key
// of a problem file, in --algo, in a CLI11 message) are escaped (limits::escape_control).
void print_error(const std::string& message);

// The one JSON object of predict and simulate on stdout; a failed write (a closed pipe, a full
// disk) is an I/O error of the run, exit 2, never a silent success.
void print_result(const nlohmann::json& result);

}  // namespace fedverify::reports
