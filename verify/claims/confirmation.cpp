// Verdict classes of rows and the confirmation rerun of failed statistical rows (claim.hpp).
#include <fmt/format.h>

#include <string>
#include <utility>

#include "verify/claims/claim.hpp"

namespace fedverify::claims {

VerdictClass verdict_class(const Row& row) {
  if (!row.passed) return VerdictClass::fails;
  if (!row.equivalence.statistical()) return VerdictClass::within_tolerance;
  // A row that failed its first attempt is at most "not rejected": its rerun alone confirming
  // equivalence would be a second chance at a false confirmation.
  if (row.equivalence.confirmed && row.first_attempt.is_null()) return VerdictClass::equivalent;
  return VerdictClass::not_rejected;
}

const char* to_string(VerdictClass c) {
  switch (c) {
    case VerdictClass::within_tolerance:
      return "within tolerance";
    case VerdictClass::equivalent:
      return "equivalent";
    case VerdictClass::not_rejected:
      return "not rejected";
    case VerdictClass::fails:
      return "fails";
  }
  return "fails";
}

ClaimResult run_claim(const Claim& claim, const Context& ctx) {
  ClaimResult first = claim.run(ctx);
  const auto rerun_needed = [](const Row& r) { return !r.passed && r.equivalence.statistical(); };
  bool any = false;
  for (const auto& r : first.rows) any = any || rerun_needed(r);
  if (!any) return first;
  Context again = ctx;
  again.attempt = ctx.attempt + 1;
  again.figures = false;  // the figures are the first attempt's
  const ClaimResult second = claim.run(again);
  int confirmed = 0, unconfirmed = 0;
  for (auto& row : first.rows) {
    if (!rerun_needed(row)) continue;
    const nlohmann::json attempt = {
        {"measured", row.measured}, {"data", row.data}, {"equivalence", row.equivalence.tests}};
    const Row* rerun = nullptr;
    for (const auto& r : second.rows) {
      if (r.setting == row.setting) rerun = &r;
    }
    if (rerun ==
        nullptr) {  // the rerun has no such row (e.g. it diverged first): the failure stands
      row.first_attempt = attempt;
      ++confirmed;
      continue;
    }
    Row replaced = *rerun;
    replaced.first_attempt = attempt;
    (replaced.passed ? unconfirmed : confirmed) += 1;
    row = std::move(replaced);
  }
  first.seconds += second.seconds;
  first.note += fmt::format(
      "{}Confirmation rerun at independent seeds (attempt {}): {} row(s) failed again, {} "
      "passed (their first attempt is kept in results.json).",
      first.note.empty() ? "" : " ", again.attempt, confirmed, unconfirmed);
  return first;
}

}  // namespace fedverify::claims
