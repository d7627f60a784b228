#include "reports/report/verdicts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimators/statistics/sample_size.hpp"

namespace fedverify::reports {

std::string row_verdict(const claims::Row& row) {
  if (!row.passed) return "❌ fails";
  if (claims::verdict_class(row) != claims::VerdictClass::not_rejected) return "✅ holds";
  const std::string advice = estimators::budget_advice(row.equivalence.budget_multiple);
  return advice.empty() ? "❔ not confirmed" : fmt::format("❔ not confirmed ({})", advice);
}

ClaimVerdict claim_verdict(const claims::ClaimResult& r) {
  if (!r.passed()) return ClaimVerdict::fails;
  for (const auto& row : r.rows) {
    if (claims::verdict_class(row) == claims::VerdictClass::not_rejected) {
      return ClaimVerdict::inconclusive;
    }
  }
  return ClaimVerdict::holds;
}

const char* to_string(ClaimVerdict v) {
  switch (v) {
    case ClaimVerdict::holds:
      return "holds";
    case ClaimVerdict::inconclusive:
      return "inconclusive";
    case ClaimVerdict::fails:
      break;
  }
  return "fails";
}

std::string verdict_text(ClaimVerdict v) {
  const char* icon = v == ClaimVerdict::holds ? "✅" : v == ClaimVerdict::fails ? "❌" : "❔";
  return fmt::format("{} {}", icon, to_string(v));
}

nlohmann::json ClassCounts::json() const {
  using enum claims::VerdictClass;
  return {{"within_tolerance", (*this)[within_tolerance]},
          {"equivalent", (*this)[equivalent]},
          {"not_rejected", (*this)[not_rejected]},
          {"fails", (*this)[fails]}};
}

ClassCounts class_counts(const claims::ClaimResult& r) {
  ClassCounts k;
  for (const auto& row : r.rows) k.add(claims::verdict_class(row));
  return k;
}

Settle what_would_settle(const claims::ClaimResult& r) {
  Settle s;
  double worst = 0;
  for (const auto& row : r.rows) {
    if (claims::verdict_class(row) != claims::VerdictClass::not_rejected) continue;
    ++s.rows;
    const double mde = row.equivalence.mde, margin = row.equivalence.margin;
    if (!std::isfinite(mde) || !(margin > 0) || !std::isfinite(margin)) continue;
    // The row's own advice (kit::add_equivalence: Stein's multiple of the part of its MDE that
    // shrinks with the sample); a row that already resolves δ/2 counts as 1: it still needs "a
    // larger sample".
    const double multiple = std::max(1.0, row.equivalence.budget_multiple);
    if (multiple > worst) {
      worst = multiple;
      s.multiple = multiple;
      s.mde = mde;
      s.margin = margin;
      s.setting = row.setting;
    }
  }
  if (worst > 0) s.factor = std::max(2.0, estimators::rounded_budget_multiple(worst));
  return s;
}

std::string count_of(std::size_t n, const char* singular, const char* plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural);
}

}  // namespace fedverify::reports
