// The linear speed-up measurement shared by dynamics.linear-speedup (quadratics, exact
// prediction) and dynamics.linear-speedup-logistic (logistic regression, first-order prediction
// with a remainder allowance): tr Cov_π · N/γ over N for FedAvg and Scaffold, one z test per N
// (estimators/statistics/decide.hpp (e)) and one slope test per algorithm ((k)): the slope of
// log tr Cov against log N must contain −1.                         THEORY (F2), (S2)
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::dynamics {

// What a speed-up row compares the measured tr Cov_π · N/γ with.
struct SpeedupPrediction {
  double value = 0;      // predicted tr Cov_π · N/γ
  double allowance = 0;  // deterministic remainder allowed on top of the Monte Carlo error
  double first_order = 0;
  std::string text;
};

// What one speed-up claim measures: the N-client problems and the prediction for each.
struct SpeedupSetting {
  std::string id;      // the claim's id (row seeds are hashed from it, kit::row_seed)
  std::string family;  // "quadratic" | "logistic": first word of every row's setting
  // The N-client problem.
  std::function<std::shared_ptr<const theory::Problem>(int n)> problem_for;
  // The prediction for (algorithm, problem, coefficients, step).
  std::function<SpeedupPrediction(theory::Algorithm, const theory::Problem&,
                                  const theory::ExpansionCoefficients&, const theory::StepSetting&)>
      predict;
  std::string title, file, caption;  // the figure
  // Equivalence margins (kit/verdict.hpp), relative: of the predicted tr Cov·N/γ per N, and of
  // the slope −1.
  double margin = 0;
  double slope_margin = 0;
};

// Family-wise α of each speed-up claim (kFamilyAlpha), split by Bonferroni over the per-N z
// tests and the slope interval of each algorithm: 2 × (5 + 1) = 12 tests.
double speedup_test_alpha();

ClaimResult run_speedup(const Context& ctx, const SpeedupSetting& setting);

}  // namespace fedverify::claims::dynamics
