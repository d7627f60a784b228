#include "verify/claims/logistic/budget_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "estimators/statistics/sample_size.hpp"

namespace fedverify::claims::logistic {

BudgetPlan stein_budget_plan(const std::vector<Row>& pilot, double pilot_factor, double cap) {
  BudgetPlan plan;
  plan.pilot_factor = pilot_factor;
  plan.needed = pilot_factor;
  for (const Row& row : pilot) {
    const Equivalence& e = row.equivalence;
    if (!e.statistical()) continue;  // a diverged pilot row: the main run will say so
    const double multiple = estimators::stein_budget_multiple(e.mde, e.margin, e.margin);
    plan.needed = std::max(plan.needed, pilot_factor * multiple);
  }
  plan.factor = std::clamp(plan.needed, pilot_factor, cap);
  return plan;
}

std::string BudgetPlan::text() const {
  return fmt::format("pilot at {:.3g}×, needed {:.3g}×, run at {:.3g}× the standard budget{}",
                     pilot_factor, needed, factor, capped() ? " (capped)" : "");
}

}  // namespace fedverify::claims::logistic
