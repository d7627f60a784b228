// The linear speed-up measurement shared by dynamics.linear-speedup (heterogeneous quadratics,
// exact prediction) and dynamics.linear-speedup-logistic (heterogeneous logistic regression,
// first-order prediction with a remainder allowance): tr Cov_π · N/γ over N at ONE step size γ
// for FedAvg and Scaffold, one z test per N (estimators/statistics/decide.hpp (e)) and one test
// per algorithm of the slope of log(tr Cov_π / ν_N) against log N ((e) on the fitted slope, its
// standard error propagated from the five runs' replication errors, Student-t with G − 1 degrees
// of freedom), ν_N a per-N normaliser (1, or tr 𝒜C̄_N when the
// clients' noise scale changes with N). THEORY (F2), (S2)
//
// Allowances. Each N carries a relative allowance a_N for the deterministic remainder of its
// prediction (0 for an exact prediction). The slope of y_N = log(tr Cov_N/ν_N) against x = log N
// is b = Σ_N w_N y_N with w_N = (x_N − x̄)/S_xx and Σ_N w_N = 0, so perturbing every y_N by at
// most δ_N ∈ [log(1 − a), log(1 + a)] (a = max_N a_N) moves b by at most
// ½ Σ_N |w_N| · log((1 + a)/(1 − a)): that is the slope's allowance, derived from the per-N ones.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::dynamics {

// What a speed-up row compares the measured tr Cov_π · N/γ with.
struct SpeedupPrediction {
  double value = 0;               // predicted tr Cov_π · N/γ
  double allowance_relative = 0;  // a_N: deterministic relative remainder allowed
  double first_order = 0;         // tr 𝒜C̄ (the first-order value of tr Cov_π · N/γ)
  double normaliser = 1;          // ν_N
  std::string text;
};

// What one speed-up claim measures: the N-client problems and the prediction for each.
struct SpeedupSetting {
  std::string id;        // the claim's id (row seeds are hashed from it, kit::row_seed)
  std::string family;    // "quadratic" | "logistic": first word of every row's setting
  double gamma_l = 0.1;  // γ·L_ref, L_ref the largest smoothness over the family: one γ for all N
  int local_steps = 2;
  // The N-client problem.
  std::function<std::shared_ptr<const theory::Problem>(int n)> problem_for;
  // The prediction for (algorithm, problem, coefficients, step).
  std::function<SpeedupPrediction(const Context&, theory::Algorithm, const theory::Problem&,
                                  const theory::ExpansionCoefficients&, const theory::RunSetting&)>
      predict;
  std::string slope_text;            // what the slope row compares, e.g. "log tr Cov_π"
  std::string title, file, caption;  // the figure
  // Equivalence margins (kit/verdict.hpp), relative: of the predicted tr Cov·N/γ per N, and of
  // the predicted slope (scale |−1| = 1, the first-order slope).
  double margin = 0;
  double slope_margin = 0;
};

// The clients and algorithms of the speed-up claims.
const std::vector<int>& speedup_clients();

// Family-wise α of each speed-up claim (kFamilyAlpha), split by Bonferroni over the per-N z
// tests and the slope test of each algorithm: 2 × (5 + 1) = 12 tests.
double speedup_test_alpha();

// ½ Σ_i |w_i| · log((1 + a)/(1 − a)) for the least-squares slope against x (see above;
// estimators::slope_shift_bound).
double slope_allowance(const std::vector<double>& x, double relative_allowance);

// Appends the rows of every algorithm, and returns the claim's result.
ClaimResult run_speedup(const Context& ctx, const SpeedupSetting& setting);

}  // namespace fedverify::claims::dynamics
