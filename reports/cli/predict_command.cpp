#include "reports/cli/run_commands.hpp"
#include "reports/runs/family_runner.hpp"

namespace fedverify::reports {

int predict_command(const RunInputs& o, const theory::AlgorithmDescriptor& algorithm) {
  const RunOutput out = predict_run(o, algorithm);
  for (const std::string& warning : out.warnings) print_error(warning);
  print_result(out.result);
  return 0;
}

}  // namespace fedverify::reports
