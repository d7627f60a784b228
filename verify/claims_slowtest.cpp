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

#include "verify/claims/claim.hpp"

namespace fedverify::claims {
namespace {

class ClaimTest : public ::testing::TestWithParam<const Claim*> {};

TEST_P(ClaimTest, Holds) {
  const Claim& claim = *GetParam();
  Context ctx;
  ctx.options.quick = true;
  const ClaimResult r = run_claim(claim, ctx);
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
