// Stein's two-stage sizing of the control-variate rows (issue 26 item 3): a pilot run says how
// long the main run must be for its minimum detectable error to reach the target.
#pragma once

#include <string>
#include <vector>

#include "verify/claims/claim.hpp"

namespace fedverify::claims::logistic {

// Stein's two-stage sizing (issue 26 item 3) of rows decided by agreement within their margin δ
// (richardson_row and combination_row on control-variate pairs: decide.hpp (e), whose allowance is
// δ itself). `pilot` holds the rows measured at `pilot_factor` times the standard control-variate
// budget on seeds independent of the main run's. Each row needs ((MDE − δ)/(δ/2))² times the
// pilot's budget for the part of its MDE that shrinks with the sample to reach δ/2 at power
// kit::kPower (estimators::stein_budget_multiple); the plan's factor is the largest need, clamped
// to [pilot_factor, cap]. The main run is measured afresh at that factor and decided alone, so its
// α is exact whatever the pilot saw.
struct BudgetPlan {
  double pilot_factor = 0;
  double needed = 0;  // the largest factor the pilot's rows ask for (before the clamp)
  double factor = 0;  // the main run's
  bool capped() const { return needed > factor; }
  std::string text() const;  // "pilot at 0.5×, needed 6.8×, run at 6.8× the standard budget"
};
BudgetPlan stein_budget_plan(const std::vector<Row>& pilot, double pilot_factor, double cap);

}  // namespace fedverify::claims::logistic
