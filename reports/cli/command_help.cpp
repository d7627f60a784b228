#include "reports/cli/command_help.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fedverify::reports {

std::string algorithm_help(const AlgorithmFilter& accepts) {
  std::string help = "Algorithm, one of:";
  for (const theory::AlgorithmDescriptor* d : theory::registered_algorithms()) {
    if (accepts(*d)) help += fmt::format("\n  {:<9} {}", d->name(), d->summary);
  }
  return help;
}

bool read_by_any(theory::AlgorithmOption option, const AlgorithmFilter& accepts) {
  const auto all = theory::registered_algorithms();
  return std::any_of(all.begin(), all.end(), [&](const theory::AlgorithmDescriptor* d) {
    return accepts(*d) && d->reads(option);
  });
}

std::string optimiser_option_help(theory::OptimiserRole role) {
  std::string names;
  for (const theory::OptimiserKind& k : theory::optimiser_kinds()) {
    if (k.role != role) continue;
    names += names.empty() ? std::string(k.name) : fmt::format(", {}", k.name);
  }
  return fmt::format(
      "{} optimiser NAME[:KEY=VALUE,...], default sgd; NAME one of {} ({} lists "
      "the keys, defaults and ranges)",
      role == theory::OptimiserRole::server ? "Server" : "Client", names, kHelpOptimisersFlag);
}

std::string optimiser_keys_help() {
  return fmt::format(
      "Optimisers of --algo fedopt (docs/CLI.md, FedOpt; docs/THEORY.md §9), written "
      "NAME[:KEY=VALUE,...]\n\n--server {}\n\n--client {}\n",
      theory::optimiser_help(theory::OptimiserRole::server),
      theory::optimiser_help(theory::OptimiserRole::client));
}

bool wants_optimiser_help(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), kHelpOptimisersFlag) != args.end();
}

}  // namespace fedverify::reports
