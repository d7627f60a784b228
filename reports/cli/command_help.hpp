// Per-command help of the `fedverify` command line (issue 31 item 5): each command's --help lists
// only what that command accepts — the algorithms of --algo it runs (predict: those with closed
// forms; conformance: the ones it can check), and none of the algorithm-specific options that no
// such algorithm reads — and names the optimisers of --server and --client in one line each,
// their keys, defaults and ranges being behind `COMMAND --help-optimisers` (the full list ran to
// 100 lines, twice, in every --help).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::reports {

using theory::AlgorithmFilter;

// The --algo help of a command: "Algorithm, one of:" and each accepted algorithm's summary.
std::string algorithm_help(const AlgorithmFilter& accepts);

// Whether an accepted algorithm reads `option` (an option no accepted algorithm reads is left out
// of the command).
bool read_by_any(theory::AlgorithmOption option, const AlgorithmFilter& accepts);

// The names of the accepted algorithms that satisfy `also`, joined with "and" ("" when none).
std::string accepted_names(const AlgorithmFilter& accepts, const AlgorithmFilter& also);

// The help of --problem and --gamma for the accepted algorithms (a game file and the step's name
// for games and L2GD only where the command accepts those).
std::string problem_help(const AlgorithmFilter& accepts);
std::string gamma_help(const AlgorithmFilter& accepts);

// An algorithm-specific option's help: `description` and, unless every accepted algorithm reads
// `option`, "(only …)" naming the accepted ones that do.
std::string algorithm_option_help(const std::string& description, theory::AlgorithmOption option,
                                  const AlgorithmFilter& accepts);

// The one-line help of --server or --client: the syntax, the default and the names of the role's
// optimisers, pointing at --help-optimisers.
std::string optimiser_option_help(theory::OptimiserRole role);

// The flag that prints every optimiser with its keys, and what it prints (both roles).
inline constexpr const char* kHelpOptimisersFlag = "--help-optimisers";
std::string optimiser_keys_help();

// Whether `args` (argv without the program name) asks a command for --help-optimisers: checked
// before parsing, so that it works without the command's required options, like --help.
bool wants_optimiser_help(const std::vector<std::string>& args);

}  // namespace fedverify::reports
