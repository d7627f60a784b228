// Algorithm-specific options of the run subcommands (theory::AlgorithmOption): each is declared
// with the algorithms that read it in its help, kept only on the subcommands where some accepted
// algorithm reads it, and refused when given with an algorithm that would ignore it (docs/CLI.md:
// bad input names the flag, exit 2).
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "reports/cli/command_help.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::reports {

// An algorithm-specific option (theory::AlgorithmOption): given with an algorithm whose
// descriptor does not read it, it would be ignored silently, so it is refused (docs/CLI.md: bad
// input names the flag, exit 2).
struct AlgorithmOnlyOption {
  const CLI::Option* option;
  theory::AlgorithmOption reads;
};

// Throws InputError naming the first option of `options` that was given although `algorithm`
// does not read it.
void refuse_foreign_options(const theory::AlgorithmDescriptor& algorithm,
                            const std::vector<AlgorithmOnlyOption>& options);

// Per-command help (command_help.hpp): `sub` keeps only the algorithm-specific options that an
// algorithm it accepts reads, and its --algo help lists only those algorithms.
void keep_only_accepted(CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for,
                        const reports::AlgorithmFilter& accepts);

// Adds the algorithm-specific option `which` (its flag: theory::option_flag) to `sub`, its help
// saying which algorithms read it, and records it for refuse_foreign_options.
template <typename T>
CLI::Option* add_algorithm_option(CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for,
                                  theory::AlgorithmOption which, T& target,
                                  const std::string& description) {
  const std::string readers = theory::algorithm_names(
      [&](const theory::AlgorithmDescriptor& d) { return d.reads(which); }, "and");
  CLI::Option* option = sub->add_option(std::string(theory::option_flag(which)), target,
                                        fmt::format("{} (only {})", description, readers));
  only_for.push_back({option, which});
  return option;
}

// conformance also knows Scaffold's law with client sampling (THEORY S8), which predict and
// simulate do not run: there --participating is Scaffold's option as well as FedOpt's.
std::vector<AlgorithmOnlyOption> conformance_reads(const theory::AlgorithmDescriptor& algorithm,
                                                   std::vector<AlgorithmOnlyOption> options);

}  // namespace fedverify::reports
