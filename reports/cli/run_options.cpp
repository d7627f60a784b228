#include "reports/cli/run_options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <utility>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::reports {

double require_lambda(const CommonOptions& o) {
  if (!o.lambda) throw InputError(fmt::format("--lambda: required with --algo {}", o.algorithm));
  return *o.lambda;
}

void print_error(const std::string& message) {
  fmt::print(stderr, "fedverify: {}\n", theory::limits::escape_control(message));
}

void print_result(const nlohmann::json& result) {
  std::cout << result.dump() << '\n';
  std::cout.flush();
  if (!std::cout) throw InputError("stdout: cannot write the result (closed or full output)");
}

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

theory::ResolvedAlgorithm resolve_run(const CommonOptions& o) {
  theory::StepSetting step{o.gamma, o.local_steps};
  step.server = theory::parse_optimiser(o.server, theory::OptimiserRole::server);
  step.client = theory::parse_optimiser(o.client, theory::OptimiserRole::client);
  step.participating = o.participating;
  theory::PresetValues values;
  for (const auto& [key, value] : o.preset_values) {
    if (value) values.emplace_back(key, *value);
  }
  return theory::resolve_algorithm(o.algorithm, std::move(step), values, o.server_given,
                                   o.client_given, theory::command_line_fields());
}

theory::StepSetting step_setting(const CommonOptions& o) { return resolve_run(o).step; }

}  // namespace fedverify::reports
