// `fedverify check CLAIM.json`: a claim written as a file, for people who write no code
// (docs/CLAIM_FILES.md; parsed by claim_file.hpp). The file names a problem, an algorithm and its
// options, a grid of settings, a predicted quantity (a built-in formula or numbers), how it is
// measured (exact moments or a simulation) and a decision rule with its α; `check` runs it as a
// one-claim report in the format of `fedverify report` (REPORT.md, results.json).
#pragma once

#include <string>

#include "reports/report/report.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// The claim of a claim file; throws InputError naming the file and the field (e.g.
// "c.json: grid.gamma[2]: expected a number > 0"). Relative problem paths are read from the
// claim file's directory.
claims::Claim load_claim_file(const std::string& path);

// Runs it and writes the report into options.out_dir; the exit code of run_report (0: holds,
// 1: fails).
int run_check(const std::string& path, ReportOptions options);

}  // namespace fedverify::reports
