// results.json: the machine-readable report (docs/CLI.md, "results.json"). Its claims array holds
// every row of every claim with its numbers, verdict class, margin, MDE and gates; the baseline
// comparison (baseline.hpp) reads it back.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/report/report.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// One claim's entry of results.json "claims": its card, verdict and rows.
nlohmann::json claim_json(const claims::Claim& c, const claims::ClaimResult& r);

// The whole results.json but its regressions, baseline mismatches and detection power (which
// publish_report adds): provenance, problems, claims and the rows counted by verdict class.
nlohmann::json results_json(const nlohmann::json& run_provenance, const ReportContents& contents,
                            const std::vector<claims::ClaimResult>& outcomes);

}  // namespace fedverify::reports
