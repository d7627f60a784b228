// Runs every claim of the catalogue (verify/claims/) on its quick grid and asserts its
// verdict, one ctest test per claim (label slow: the fast label runs the same claims once,
// through `fedverify report --quick --baseline`, the CI regression gate). The same claim
// definitions produce the rows of `fedverify report`, so the report shows exactly what this suite
// checks.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "verify/claims/claim.hpp"

namespace fedverify::claims {
namespace {

class ClaimTest : public ::testing::TestWithParam<const Claim*> {};

TEST_P(ClaimTest, Holds) {
  const Claim& claim = *GetParam();
  Context ctx;
  ctx.options.quick = true;
  const ClaimResult r = claim.run(ctx);
  fmt::print("{}: {}\n  rule: {}\n", claim.id, claim.card.statement, claim.card.decision_rule);
  for (const auto& row : r.rows) {
    fmt::print("  [{}] {} | predicted {} | measured {}\n", row.passed ? "ok" : "FAIL", row.setting,
               row.predicted, row.measured);
    EXPECT_TRUE(row.passed) << row.setting << ": predicted " << row.predicted << ", measured "
                            << row.measured;
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
