// The figure of a claim file's report (docs/CLAIM_FILES.md, "The report's figure"): its rows
// against γ, one series per setting but γ — never against the row number. tolerance: the relative
// error with the tolerance as a line (log–log); remainder_order: max|predicted − exact| per group
// (log–log, the slope the rule tests); hotelling, matrix_agreement: the test statistic over its
// threshold, with 1 as a line (the row fails above it).
#pragma once

#include "reports/cli/claim_file.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// Adds the figure to `out` (rows in the order run() made them) when ctx asks for figures.
void add_claim_figure(const ClaimFile& c, const claims::Context& ctx, claims::ClaimResult& out);

}  // namespace fedverify::reports
