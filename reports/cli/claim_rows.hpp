// The rows of a claim written as data — a claim file (claim_file.hpp) or a Python fedverify.Claim,
// which hands the same ClaimFile over with its predictions as numbers (python/src/claim_rows.cpp):
// one engine behind both. Per grid point, the predicted quantity against the exact one (tolerance:
// relative, max|P − M| ≤ t·max|M|) or a simulation (hotelling, matrix_agreement, with the
// equivalence margin, the rule's minimum detectable error and an optional known-remainder
// allowance); per setting but γ, the remainder's log–log slope (remainder_order). The figure is
// claim_figure.hpp's.
#pragma once

#include "reports/cli/claim_file.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// The rows (and, when ctx asks for figures, the figure) of `c` at ctx's seed and attempt. Each
// row's data holds "setting" (the grid point's settings by key; remainder rows: "settings", one
// per γ) beside the rule's numbers.
claims::ClaimResult claim_rows(const ClaimFile& c, const claims::Context& ctx);

// The catalogue entry of `c` (card from the file's fields, run = claim_rows) in `family`.
claims::Claim claim_of(const std::shared_ptr<const ClaimFile>& c, std::string family);

}  // namespace fedverify::reports
