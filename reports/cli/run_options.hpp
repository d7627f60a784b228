// The options of `fedverify conformance` beyond a run's inputs (run_inputs.hpp) as the command line
// reads them (command_line.cpp declares the flags, docs/CLI.md documents them), and the one-line
// error and one-object result conventions of every subcommand (docs/CLI.md, exit codes).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "reports/runs/run_inputs.hpp"

namespace fedverify::reports {

// conformance's own options: the implementation and the sizes of its two runs.
struct ConformanceOptions {
  std::string command;
  std::optional<std::string> seed;
  // --chains and --rounds: absent, the mode's defaults (ConformanceSpec's; trajectory mode's).
  std::optional<int> chains, rounds;
  int burn_in = 100, one_round_chains = 4000;
  std::string trajectory;     // --trajectory PRECISION (empty: the statistical checks)
  bool protocol_fds = false;  // --protocol-fds
  bool per_model = false;     // --per-model
  int workers = 0;            // --workers (0: one per hardware thread)
  double weight_decay = 0;    // --weight-decay λ
  double alpha = 0.01;
  double timeout = 60;  // --timeout: seconds per message (reports::kDefaultMessageTimeout)
};

// Every message goes to stderr as exactly one line: control characters in it (a newline in a key
// of a problem file, in --algo, in a CLI11 message) are escaped (limits::escape_control).
void print_error(const std::string& message);

// The one JSON object of predict and simulate on stdout; a failed write (a closed pipe, a full
// disk) is an I/O error of the run, exit 2, never a silent success.
void print_result(const nlohmann::json& result);

}  // namespace fedverify::reports
