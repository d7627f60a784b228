#include "verify/claims/logistic/budget_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace fedverify::claims::logistic {
namespace {

// A pilot row of rule (e) with margin δ and relative minimum detectable error `mde`.
Row pilot_row(double margin, double mde) {
  Row row;
  row.equivalence.margin = margin;
  row.equivalence.mde = mde;
  return row;
}

TEST(SteinBudgetPlan, AsksForTheBudgetThatBringsTheShrinkingPartToHalfTheMargin) {
  // δ = 5 %, pilot MDE 14.4 %: the part that shrinks is 9.4 %, (9.4/2.5)² = 14.14 times the
  // pilot's budget; the pilot ran at 0.5 of the standard one.
  const BudgetPlan plan = stein_budget_plan({pilot_row(0.05, 0.144)}, 0.5, 8.0);
  EXPECT_NEAR(plan.needed, 0.5 * std::pow(0.094 / 0.025, 2), 1e-12);
  EXPECT_DOUBLE_EQ(plan.factor, plan.needed);
  EXPECT_FALSE(plan.capped());
}

TEST(SteinBudgetPlan, TheNeediestRowSetsTheBudgetWithinTheCap) {
  const std::vector<Row> pilot = {pilot_row(0.05, 0.06), pilot_row(0.05, 0.30)};
  const BudgetPlan plan = stein_budget_plan(pilot, 0.5, 8.0);
  EXPECT_NEAR(plan.needed, 0.5 * 100.0, 1e-9);  // ((0.30 − 0.05)/0.025)² = 100
  EXPECT_DOUBLE_EQ(plan.factor, 8.0);
  EXPECT_TRUE(plan.capped());
  EXPECT_NE(plan.text().find("(capped)"), std::string::npos);
}

TEST(SteinBudgetPlan, ARowAlreadyPreciseEnoughKeepsThePilotBudget) {
  // MDE 6 % ≤ δ + δ/2 = 7.5 %: nothing more is needed, and the main run is never shorter than
  // the pilot.
  const BudgetPlan plan = stein_budget_plan({pilot_row(0.05, 0.06)}, 0.5, 8.0);
  EXPECT_DOUBLE_EQ(plan.factor, 0.5);
  // A diverged pilot row (no equivalence recorded) asks for nothing.
  EXPECT_DOUBLE_EQ(stein_budget_plan({Row{}}, 0.5, 8.0).factor, 0.5);
}

}  // namespace
}  // namespace fedverify::claims::logistic
