#include "reports/cli/command_help.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "reports/runs/family_runner.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::reports {

std::string algorithm_help(const AlgorithmFilter& accepts) {
  std::string help = "Algorithm, one of:";
  for (const theory::AlgorithmDescriptor* d : theory::registered_algorithms()) {
    if (accepts(*d)) help += fmt::format("\n  {:<9} {}", d->name(), d->summary);
  }
  // Presets (theory/problems/algorithm_preset.hpp) where their base algorithm is accepted.
  for (const theory::AlgorithmPreset* p : theory::registered_presets()) {
    const theory::AlgorithmDescriptor* base = theory::find_algorithm(p->base.name());
    if (base != nullptr && accepts(*base)) help += fmt::format("\n  {:<9} {}", p->name, p->summary);
  }
  return help;
}

bool read_by_any(theory::AlgorithmOption option, const AlgorithmFilter& accepts) {
  const auto all = theory::registered_algorithms();
  return std::any_of(all.begin(), all.end(), [&](const theory::AlgorithmDescriptor* d) {
    return accepts(*d) && d->reads(option);
  });
}

std::string accepted_names(const AlgorithmFilter& accepts, const AlgorithmFilter& also) {
  std::vector<std::string> names;
  for (const theory::AlgorithmDescriptor* d : theory::registered_algorithms()) {
    if (accepts(*d) && also(*d)) names.emplace_back(d->name());
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

namespace {

// The algorithms that `accepts` takes and whose family's runner is `runner`.
std::string accepted_of_family(const AlgorithmFilter& accepts, const FamilyRunner& runner) {
  return accepted_names(accepts, [&runner](const theory::AlgorithmDescriptor& d) {
    return d.family == runner.family;
  });
}

}  // namespace

std::string problem_help(const AlgorithmFilter& accepts) {
  std::string help = "Problem file (JSON, docs/PROBLEM_FORMATS.md)";
  for (const FamilyRunner* runner : family_runners()) {
    if (runner->problem_file_help.empty()) continue;
    const std::string names = accepted_of_family(accepts, *runner);
    if (!names.empty()) help += fmt::format("; {} for {}", runner->problem_file_help, names);
  }
  return help;
}

std::string gamma_help(const AlgorithmFilter& accepts) {
  std::string also;
  for (const FamilyRunner* runner : family_runners()) {
    if (runner->gamma_help.empty()) continue;
    const std::string names = accepted_of_family(accepts, *runner);
    if (names.empty()) continue;
    also += fmt::format("{}{} for {}", also.empty() ? "" : ", ", runner->gamma_help, names);
  }
  return "Step size gamma > 0" + (also.empty() ? std::string() : fmt::format(" ({})", also));
}

std::string algorithm_option_help(const std::string& description, theory::AlgorithmOption option,
                                  const AlgorithmFilter& accepts) {
  const auto reads = [option](const theory::AlgorithmDescriptor& d) { return d.reads(option); };
  const std::string readers = accepted_names(accepts, reads);
  const bool all =
      accepted_names(accepts, [](const theory::AlgorithmDescriptor&) { return true; }) == readers;
  return all ? description : fmt::format("{} (only {})", description, readers);
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
