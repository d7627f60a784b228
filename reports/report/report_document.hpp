// The report's content as a Document (document.hpp), from which REPORT.md (markdown.hpp) and
// REPORT.html (html.hpp) are written: a headline, the summary table (one line per claim: its
// plain statement, verdict and rows by class; what would settle an inconclusive one), how to read
// the verdicts, then one section per claim (card, verdict, rows, figures), the regressions
// against a baseline, the problems and the detection-power appendix.
#pragma once

#include <string>
#include <vector>

#include "reports/report/document.hpp"
#include "reports/report/report.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

struct ReportInputs {
  const ReportOptions* options = nullptr;
  const ReportContents* contents = nullptr;
  const std::vector<claims::ClaimResult>* outcomes = nullptr;  // one per contents->claims
  std::vector<std::string> regressions;
  std::vector<std::string> mismatches;  // baseline provenance differences (compared anyway)
};

Document report_document(const ReportInputs& in);

// A claim's statement in one line: its card's Summary, else the Statement's first sentence.
std::string claim_summary(const claims::ClaimCard& card);

}  // namespace fedverify::reports
