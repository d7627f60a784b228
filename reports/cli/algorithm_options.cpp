#include "reports/cli/algorithm_options.hpp"

#include <algorithm>

#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::reports {

void refuse_foreign_options(const theory::AlgorithmDescriptor& algorithm,
                            const std::vector<AlgorithmOnlyOption>& options) {
  for (const auto& o : options) {
    if (o.option != nullptr && o.option->count() > 0) {
      theory::refuse_unread_option(algorithm, o.reads, o.option->get_name(), "--algo");
    }
  }
}

void keep_only_accepted(CLI::App* sub, std::vector<AlgorithmOnlyOption>& only_for,
                        const reports::AlgorithmFilter& accepts) {
  std::erase_if(only_for, [&](const AlgorithmOnlyOption& o) {
    if (reports::read_by_any(o.reads, accepts)) return false;
    sub->remove_option(const_cast<CLI::Option*>(o.option));
    return true;
  });
  // The parameters of algorithms and presets (declared by key): kept where an accepted algorithm
  // or preset reads them, their "(only --algo …)" naming those alone.
  for (const std::string_view key : theory::parameter_keys()) {
    CLI::Option* option = sub->get_option_no_throw(theory::parameter_flag(key));
    if (option == nullptr) continue;
    if (theory::parameter_readers(key, accepts).empty()) {
      sub->remove_option(option);
    } else {
      option->description(theory::parameter_help(key, accepts));
    }
  }
  for (const AlgorithmOnlyOption& o : only_for) {  // "(only …)": the accepted readers
    CLI::Option* option = sub->get_option(o.option->get_name());
    const std::string text = option->get_description();
    option->description(
        reports::algorithm_option_help(text.substr(0, text.rfind(" (only ")), o.reads, accepts));
  }
  sub->get_option("--algo")->description(reports::algorithm_help(accepts));
  sub->get_option("--problem")->description(reports::problem_help(accepts));
  sub->get_option("--gamma")->description(reports::gamma_help(accepts));
}

std::vector<AlgorithmOnlyOption> conformance_reads(const theory::AlgorithmDescriptor& algorithm,
                                                   std::vector<AlgorithmOnlyOption> options) {
  if (algorithm.algorithm == theory::Algorithm::scaffold) {
    std::erase_if(options, [](const AlgorithmOnlyOption& o) {
      return o.reads == theory::AlgorithmOption::participating;
    });
  }
  return options;
}

}  // namespace fedverify::reports
