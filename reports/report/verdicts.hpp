// The verdicts of the report: a row's (holds / not confirmed / fails), a claim's (holds /
// inconclusive / fails), the rows counted by verdict class, and what would settle an
// inconclusive claim. REPORT.md, REPORT.html and results.json all take them from here.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>

#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// A row holds when it agrees within its declared margin (equivalent) or tolerance; a row that
// passes its rule but whose agreement the margin's TOST does not confirm reads "not confirmed"
// (claim.hpp, VerdictClass::not_rejected): "holds" means agreement within a stated margin, not
// "was not rejected".
std::string row_verdict(const claims::Row& row);

// A claim holds when every row holds, fails when a row fails, and is otherwise inconclusive (no
// row fails, some are only not rejected). The exit status and the baseline gate use `passed`
// (no row fails); "inconclusive" is what the report and results.json ("verdict") say about it.
enum class ClaimVerdict { holds, inconclusive, fails };

ClaimVerdict claim_verdict(const claims::ClaimResult& r);
const char* to_string(ClaimVerdict v);
std::string verdict_text(ClaimVerdict v);  // with its icon: "✅ holds"

// Verdict classes of a set of rows (claim.hpp, VerdictClass), counted by class.
struct ClassCounts {
  std::array<int, 4> n{};  // indexed by VerdictClass
  void add(claims::VerdictClass c) { ++n.at(static_cast<std::size_t>(c)); }
  int operator[](claims::VerdictClass c) const { return n.at(static_cast<std::size_t>(c)); }
  nlohmann::json json() const;
};

ClassCounts class_counts(const claims::ClaimResult& r);

// What would settle an inconclusive claim. A not-rejected row's interval is too wide to confirm
// the margin δ; its minimum detectable error (decide.hpp (m)) falls like 1/√n with the number n
// of independent chains or replications. The claim needs `factor` times its sample: the max over
// its not-rejected rows of the row's Stein budget multiple (Equivalence::budget_multiple,
// ((MDE − A)/(δ/2))², A the allowance of a rule that tolerates a declared remainder, 0 for a point
// null) — the sample at which the part of the MDE that shrinks with it is δ/2, so agreement within
// δ is confirmed with probability ≥ 0.9 when the prediction is right to δ/2
// (estimators::stein_budget_multiple, the same number as the row's "needs ≈ k× this budget") —
// rounded up (estimators::rounded_budget_multiple) and at least 2 (a row with a small
// MDE has its estimate near the margin, and a larger sample narrows its interval too); 0 when no
// such row has a finite MDE and a positive margin.
struct Settle {
  int rows = 0;         // not-rejected rows
  double factor = 0;    // max budget multiple rounded up, ≥ 2; 0 when unknown
  double multiple = 0;  // that row's budget multiple, unrounded (≥ 1)
  double mde = 0;       // of the row that sets the factor (relative)
  double margin = 0;    // its δ (relative)
  std::string setting;  // its setting
};
Settle what_would_settle(const claims::ClaimResult& r);

// "1 row", "2 rows".
std::string count_of(std::size_t n, const char* singular, const char* plural);

}  // namespace fedverify::reports
