#include "reports/cli/run_options.hpp"

#include <fmt/format.h>

#include <iostream>

#include "theory/problems/limits.hpp"

namespace fedverify::reports {

void print_error(const std::string& message) {
  fmt::print(stderr, "fedverify: {}\n", theory::limits::escape_control(message));
}

void print_result(const nlohmann::json& result) {
  std::cout << result.dump() << '\n';
  std::cout.flush();
  if (!std::cout) throw InputError("stdout: cannot write the result (closed or full output)");
}

}  // namespace fedverify::reports
