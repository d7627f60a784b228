#include "reports/runs/run_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::reports {

std::uint64_t parse_seed(const std::string& text, const char* flag) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw InputError(fmt::format("{}: expected an integer in [0, 18446744073709551615], got \"{}\"",
                                 flag, theory::limits::quote_input(text)));
  }
  return value;
}

int parse_batch_rounds(const std::string& text) {
  if (text == "auto") return estimators::kAutoBatchRounds;
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw InputError(fmt::format("--batch-rounds: expected auto or an integer, got \"{}\"",
                                 theory::limits::quote_input(text)));
  }
  return value;
}

std::vector<double> parse_number_list(const std::string& text, const std::string& flag) {
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    double value = 0;
    const char* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end) {
      throw InputError(
          fmt::format("{}: expected a number or a comma-separated list of numbers, got \"{}\"",
                      flag, theory::limits::quote_input(text)));
    }
    values.push_back(value);
    if (comma == text.size()) return values;
    start = comma + 1;
  }
}

theory::ResolvedAlgorithm resolve_run(const RunInputs& o) {
  theory::RunSetting step{o.gamma, o.local_steps};
  step.server = theory::parse_optimiser(o.server, theory::OptimiserRole::server);
  step.client = theory::parse_optimiser(o.client, theory::OptimiserRole::client);
  step.participating = o.participating;
  theory::PresetValues values;
  for (const auto& [key, text] : o.parameter_values) {
    if (text) values.emplace_back(key, parse_number_list(*text, theory::parameter_flag(key)));
  }
  return theory::resolve_algorithm(o.algorithm, std::move(step), values, o.server_given,
                                   o.client_given, theory::command_line_fields());
}

const theory::AlgorithmDescriptor& algorithm_descriptor(const RunInputs& o) {
  if (const theory::AlgorithmDescriptor* d = theory::find_algorithm(o.algorithm)) return *d;
  if (const theory::AlgorithmPreset* p = theory::find_preset(o.algorithm)) {
    return theory::describe(p->base);
  }
  return theory::describe(resolve_run(o).algorithm);  // throws the unknown name's error
}

theory::RunSetting run_setting(const RunInputs& o) { return resolve_run(o).step; }

}  // namespace fedverify::reports
