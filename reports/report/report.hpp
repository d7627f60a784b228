// `fedverify report`: runs the claim catalogue and writes REPORT.md, results.json and figures.
#pragma once

#include <cstdint>
#include <string>

namespace fedverify::reports {

struct ReportOptions {
  std::string out_dir = "reports/out";
  bool quick = false;
  std::string baseline;    // results.json of an earlier run to compare against
  std::string only = "*";  // glob over claim ids
  std::uint64_t seed = 20261125;
  int threads = 0;
};

// Returns the exit code: 0 all claims hold (and no regression against the baseline),
// 1 a claim failed or the baseline comparison found a regression.
int run_report(const ReportOptions& options);

}  // namespace fedverify::reports
