// Comparing a report with a baseline (an earlier run's results.json, `report --baseline`): the
// baseline's fields are checked before they are read, its provenance (seed, grid, version,
// claims) is compared with this run's, and every row of the baseline must still be there and
// agree within the combined tolerance of both runs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/report/report.hpp"

namespace fedverify::reports {

// The fields of a results.json that the comparison reads, with the types it reads them as;
// InputError naming --baseline, the file and the field otherwise.
void validate_baseline(const nlohmann::json& b, const std::string& file);

// Where a results.json comes from: the run's seed and grid, the fedverify version and the claims
// it ran. Comparing rows across different provenance would compare different experiments.
nlohmann::json provenance(const ReportOptions& o, const std::vector<std::string>& claim_ids);

// The differences in provenance between the baseline and this run, one phrase each; the
// baseline's claims are compared with this run's within the --only glob (a full baseline serves
// a run of some of its claims). InputError naming the field when the baseline lacks one.
std::vector<std::string> provenance_mismatches(const nlohmann::json& baseline,
                                               const nlohmann::json& now, const std::string& only,
                                               const std::string& file);

// The regressions of this run's claims (results.json "claims") against the validated baseline
// (null: none), one line each: a row whose verdict flipped or whose gated quantity moved by more
// than the combined tolerance, a row of the baseline that this run lacks, and a claim of the
// baseline that matches `only` but is no longer in the run.
std::vector<std::string> regressions(const nlohmann::json& claims_now,
                                     const nlohmann::json& baseline, const std::string& only);

}  // namespace fedverify::reports
