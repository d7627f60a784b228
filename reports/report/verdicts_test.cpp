// reports/report/verdicts: what would settle an inconclusive claim. Statements: the factor is
// the max over the not-rejected rows of each row's own budget multiple as kit::add_equivalence
// records it — (MDE/(δ/2))² for a point-null rule (Stein's count for MDE ≤ δ/2; MDE ∝ 1/√n),
// ((MDE − A)/(δ/2))² for a rule with allowance A — rounded up, at least 2; deterministic,
// equivalent and failing rows do not count; with no finite MDE or no positive margin it is
// unknown (0). Row counts read "1 row" and "2 rows".
#include "reports/report/verdicts.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "verify/claims/kit/verdict.hpp"

namespace fedverify::reports {
namespace {

// A statistical row as a claim records it (kit/verdict.hpp), its rule's allowance `allowance`.
claims::Row statistical(double mde, double margin, bool confirmed, bool passed = true,
                        double allowance = 0) {
  claims::Row r;
  r.setting = "mde " + std::to_string(mde);
  r.passed = passed;
  claims::kit::add_equivalence(r, margin, confirmed, "test", mde, allowance);
  return r;
}

TEST(Verdicts, SettleFactorIsTheWorstSquaredRatioRoundedUp) {
  claims::ClaimResult r;
  r.rows.push_back(statistical(0.0970, 0.05, false));  // (0.097/0.025)² = 15.05 → 16
  r.rows.push_back(statistical(0.0663, 0.05, false));  // 7.03
  r.rows.push_back(statistical(0.5, 0.05, true));      // equivalent: does not count
  r.rows.push_back(claims::Row{});                     // deterministic, failing: no equivalence
  r.rows.back().passed = true;
  EXPECT_EQ(claim_verdict(r), ClaimVerdict::inconclusive);
  const Settle s = what_would_settle(r);
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.factor, 16.0);
  EXPECT_NEAR(s.multiple, (0.0970 / 0.025) * (0.0970 / 0.025), 1e-12);  // unrounded
  EXPECT_DOUBLE_EQ(s.mde, 0.0970);
  EXPECT_DOUBLE_EQ(s.margin, 0.05);
  EXPECT_EQ(s.setting, r.rows[0].setting);
}

TEST(Verdicts, SettleIsAtLeastTwiceTheSampleAndUnknownWithoutAnMde) {
  claims::ClaimResult r;
  r.rows.push_back(statistical(0.02, 0.05, false));  // MDE below δ/2: estimate near the margin
  EXPECT_EQ(what_would_settle(r).factor, 2.0);
  claims::ClaimResult unknown;
  unknown.rows.push_back(statistical(std::numeric_limits<double>::quiet_NaN(), 0.05, false));
  unknown.rows.push_back(statistical(0.2, 0.0, false));  // one-sided: no margin to reach
  const Settle s = what_would_settle(unknown);
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.factor, 0.0);
}

TEST(Verdicts, LargeFactorsAreRoundedUpToTwoSignificantDigits) {
  claims::ClaimResult r;
  r.rows.push_back(statistical(1.64, 0.2, false));  // (1.64/0.1)² = 268.96 → 270
  EXPECT_EQ(what_would_settle(r).factor, 270.0);
  r.rows.push_back(statistical(0.1705, 0.05, false));  // 46.5 < 269: the first row still sets it
  EXPECT_EQ(what_would_settle(r).factor, 270.0);
  claims::ClaimResult s;
  s.rows.push_back(statistical(0.1705, 0.05, false));  // (0.1705/0.025)² = 46.51 → 47
  EXPECT_EQ(what_would_settle(s).factor, 47.0);
}

// A rule that tolerates the margin itself (agreement within δ, decide.hpp (e)): MDE = δ + (c +
// q)·se, and only (c + q)·se shrinks with the sample. Counting δ as noise would ask for ≥ 4× at any
// size.
TEST(Verdicts, TheAllowanceOfARuleIsNotCountedAsNoise) {
  claims::ClaimResult r;
  r.rows.push_back(statistical(0.05 + 0.0970, 0.05, false, true, 0.05));  // (0.097/0.025)² → 16
  EXPECT_EQ(what_would_settle(r).factor, 16.0);
  claims::ClaimResult resolved;
  resolved.rows.push_back(statistical(0.05 + 0.02, 0.05, false, true, 0.05));  // 0.02 < δ/2
  EXPECT_EQ(what_would_settle(resolved).factor, 2.0);
}

TEST(Verdicts, CountsAreGrammatical) {
  EXPECT_EQ(count_of(1, "row", "rows"), "1 row");
  EXPECT_EQ(count_of(0, "row", "rows"), "0 rows");
  EXPECT_EQ(count_of(24, "row", "rows"), "24 rows");
}

}  // namespace
}  // namespace fedverify::reports
