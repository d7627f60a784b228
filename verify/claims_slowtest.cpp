// Runs every claim of the catalogue (verify/claims/) on its quick grid and asserts its
// verdict, one ctest test per claim (label slow: the fast label runs the same claims once,
// through `fedverify report --quick --baseline`, the CI regression gate). The same claim
// definitions produce the rows of `fedverify report`, so the report shows exactly what this suite
// checks, and they run the same way (claims::run_claim: a failed statistical row is declared
// failed only when its rerun at an independent seed fails too). Every row of a statistical claim
// that is decided by a statistical rule carries its equivalence margin and minimum detectable
// error (issue 13); deterministic claims carry none. Hypotheses (ClaimRegistration::hypothesis: the
// thesis's empirical findings of the optimiser study) are run and checked for well-formed rows,
// not required to hold; verify/study_perturbations_slowtest.cpp shows that each can fail.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/task_spread.hpp"

namespace fedverify::claims {
namespace {

class ClaimTest : public ::testing::TestWithParam<const Claim*> {};

// A spread of tasks over two simulated processes (task_spread.hpp), as a report across two ranks
// sees it: the even tasks are computed in one call, the odd ones in another, and the values are
// put back in index order. It counts the claim's spread calls: a claim registered as a sweep
// must spread its tasks, and a claim that spreads tasks must be registered as one (else a report
// across ranks would run it on one rank, or on every rank in full).
class TwoProcessSpread final : public TaskSpread {
 public:
  std::vector<nlohmann::json> all_values(std::size_t n, const Compute& compute) const override {
    ++calls_;
    std::vector<std::size_t> share[2];
    for (std::size_t i = 0; i < n; ++i) share[i % 2].push_back(i);
    const std::vector<nlohmann::json> values[2] = {compute(share[0]), compute(share[1])};
    std::vector<nlohmann::json> all(n);
    for (int p = 0; p < 2; ++p) {
      for (std::size_t k = 0; k < share[p].size(); ++k) all[share[p][k]] = values[p][k];
    }
    return all;
  }
  int calls() const { return calls_; }

 private:
  mutable int calls_ = 0;
};

TEST_P(ClaimTest, Holds) {
  const Claim& claim = *GetParam();
  Context ctx;
  ctx.options.quick = true;
  const TwoProcessSpread spread;
  ctx.spread = &spread;
  const ClaimResult r = run_claim(claim, ctx);
  // (A sweep that reads a computation shared with an earlier claim, Claim::shared_run, may find
  // it cached by that claim's test and spread nothing here.)
  if (claim.sweep && claim.shared_run.empty()) {
    EXPECT_GT(spread.calls(), 0) << claim.id << " is registered as a sweep but spreads no task";
  }
  if (!claim.sweep) {
    EXPECT_EQ(spread.calls(), 0) << claim.id << " spreads tasks: register it with .sweep = true";
  }
  fmt::print("{}: {}\n  rule: {}\n", claim.id, claim.card.statement, claim.card.decision_rule);
  int statistical = 0;
  for (const auto& row : r.rows) {
    fmt::print("  [{}] {} | predicted {} | measured {} | {}, margin {}, MDE {:.3g}\n",
               row.passed ? "ok" : "FAIL", row.setting, row.predicted, row.measured,
               to_string(verdict_class(row)), row.equivalence.margin_text, row.equivalence.mde);
    // A hypothesis (an empirical finding of a source) may be refuted: that is its result.
    if (!claim.hypothesis) {
      EXPECT_TRUE(row.passed) << row.setting << ": predicted " << row.predicted << ", measured "
                              << row.measured;
    }
    if (!row.equivalence.statistical()) continue;
    ++statistical;
    EXPECT_GE(row.equivalence.margin, 0.0) << row.setting;
    EXPECT_TRUE(!std::isnan(row.equivalence.mde) && row.equivalence.mde > 0) << row.setting;
    EXPECT_FALSE(row.equivalence.tests.empty()) << row.setting;
  }
  if (claim.alpha > 0) {
    EXPECT_GT(statistical, 0) << claim.id << " is statistical but no row has a margin";
  } else {
    EXPECT_EQ(statistical, 0) << claim.id << " is deterministic but has statistical rows";
  }
  if (!r.note.empty()) fmt::print("  finding: {}\n", r.note);
  ASSERT_FALSE(r.rows.empty()) << "a claim must measure something";
}

std::vector<const Claim*> all_claims() {
  std::vector<const Claim*> v;
  for (const auto& c : catalogue()) v.push_back(&c);
  return v;
}

std::string test_name(const ::testing::TestParamInfo<const Claim*>& info) {
  std::string s = info.param->id;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, ClaimTest, ::testing::ValuesIn(all_claims()), test_name);

}  // namespace
}  // namespace fedverify::claims
