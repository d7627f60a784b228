#include "reports/cli/run_commands.hpp"
#include "reports/report/progress.hpp"
#include "reports/report/thread_limit.hpp"
#include "reports/runs/family_runner.hpp"

namespace fedverify::reports {

int simulate_command(const RunInputs& o, const SimulateInputs& s,
                     const theory::AlgorithmDescriptor& algorithm) {
  const ThreadLimit limit(s.threads);  // also the closed forms' parallel regions
  reports::ProgressLine progress("simulate", "rounds");
  const RunOutput out = simulate_run(o, s, algorithm, progress.callback());
  progress.finish();
  for (const std::string& warning : out.warnings) print_error(warning);
  print_result(out.result);
  return 0;
}

}  // namespace fedverify::reports
