// What the claim-perturbation suites share (verify/claim_perturbations_slowtest.cpp,
// verify/claim_perturbations_personalised_slowtest.cpp): a claim run as the report runs it
// (claims::run_claim, with the confirmation rerun) through a planted entry point, and whether it
// failed, printing the rows that caught the perturbation.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "verify/claims/claim.hpp"

namespace fedverify::perturbations {

using claims::ClaimResult;
using claims::Context;

inline Context quick() {
  Context ctx;
  ctx.options.quick = true;
  return ctx;
}

inline const claims::Claim& claim_by_id(const std::string& id) {
  for (const auto& c : claims::catalogue()) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no claim " + id);
}

// Claim `id` run as the report runs it (claims::run_claim, with the confirmation rerun), through
// `run` instead of its registered entry point when one is given.
inline ClaimResult run_as(const std::string& id, const Context& ctx, claims::ClaimRun run = {}) {
  claims::Claim claim = claim_by_id(id);
  if (run) claim.run = std::move(run);
  return claims::run_claim(claim, ctx);
}
// The same through the claim's entry point `entry(ctx, planted)`, `planted` a wrong formula or
// setting.
template <class Entry, class Planted>
inline ClaimResult run_as(const std::string& id, const Context& ctx, Entry entry, Planted planted) {
  return run_as(id, ctx, [entry, planted](const Context& c) { return entry(c, planted); });
}

// Prints the failing rows (what caught the perturbation) and returns whether the claim failed.
inline bool fails(const std::string& what, const ClaimResult& r) {
  fmt::print("{}: {}\n", what, r.passed() ? "passed (NOT caught)" : "FAILED (caught)");
  for (const auto& row : r.rows) {
    if (!row.passed) fmt::print("    [FAIL] {} | {}\n", row.setting, row.measured);
  }
  return !r.passed();
}

// Whether the row of `r` whose setting contains `key` failed (false when there is none).
inline bool row_fails(const ClaimResult& r, const std::string& key) {
  for (const auto& row : r.rows) {
    if (row.setting.find(key) != std::string::npos) return !row.passed;
  }
  ADD_FAILURE() << "no row " << key;
  return false;
}

}  // namespace fedverify::perturbations
