// The appendix "Detection power" of REPORT.md: how often each claim of the catalogue fails when
// a known error is planted (verify/planted: wrong formulas, graded perturbations, sampler bugs
// that federated-learning frameworks shipped). Planted code is test-only and never linked into
// the fedverify command, so the report does not run it: the test-only tool build/power_table
// (verify/power/power_table.cpp, also the slow ctest power.table) computes the table and writes it
// as data, reports/power/power_table.json, committed with its provenance (date, commit, seeds,
// command); CMake embeds that file into the report at configure time, and the report prints it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "reports/report/document.hpp"

namespace fedverify::reports {

// The committed table as CMake embedded it (reports/power/power_table.json); null when the file
// was absent or is not valid JSON.
const nlohmann::json& committed_detection_power();

// The appendix section (from its heading "Appendix: detection power of the catalogue" on) for
// `table` in the format that power_table writes; a short paragraph saying that no table is
// committed when it is null or lacks the fields.
Document detection_power_document(const nlohmann::json& table);

// The same section as markdown (markdown.hpp), as REPORT.md prints it.
std::string detection_power_markdown(const nlohmann::json& table);

}  // namespace fedverify::reports
