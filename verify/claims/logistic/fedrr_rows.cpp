#include "verify/claims/logistic/fedrr_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimators/statistics/decide.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::logistic {

Row order_row(const NamedProblem& np, const ScaledBias& low, const ScaledBias& high,
              const Vector& u, double alpha, const ScaledBias& pilot, double low_gamma_l,
              double high_gamma_l, int h, std::string& order_text) {
  const estimators::ReplicatedMean a{u.dot(low.mean), std::sqrt(u.dot(low.mean_cov * u))};
  const estimators::ReplicatedMean b{u.dot(high.mean), std::sqrt(u.dot(high.mean_cov * u))};
  const auto growth = estimators::difference_exceeds(a, b, alpha);
  const auto order = estimators::doubling_order_reaches(a, b, kReachableOrder, alpha);
  const bool resolved = !std::isnan(order.estimate);
  Row row;
  row.setting = fmt::format("{}, fedrr bias order from γL = {} and {}, H = {}", np.name,
                            low_gamma_l, high_gamma_l, h);
  row.predicted = "order p > 1 (FedAvg's is 1), p ≥ 1.5 within the interval";
  row.measured = fmt::format(
      "uᵀβ(γ) = {:.4f} ± {:.4f}, uᵀβ(2γ) = {:.4f} ± {:.4f}: z = {:.2f} for p > 1; p̂ = {:.2f} "
      "[{:.2f}, {:.2f}]",
      a.mean, a.se, b.mean, b.se, growth.statistic, order.estimate, order.lower, order.upper);
  // p̂'s interval is informative only when uᵀβ(γ) > 0; otherwise the z test alone decides.
  row.passed = growth.passed && order.passed;
  row.data = {
      {"problem", np.name},
      {"gamma", low.step.gamma},
      {"direction", kit::to_std(u)},
      {"projected_scaled_bias", {a.mean, b.mean}},
      {"projected_scaled_bias_se", {a.se, b.se}},
      {"z_order_above_one", growth.statistic},
      {"order", resolved ? nlohmann::json(order.estimate) : nlohmann::json()},
      {"order_interval", resolved ? nlohmann::json({order.lower, order.upper}) : nlohmann::json()},
      {"alpha", alpha},
      {"pilot", run_json(pilot)}};
  kit::gate(row, "projected_scaled_bias[0]", a.mean, kit::kBaselineZ * a.se);
  kit::gate(row, "projected_scaled_bias[1]", b.mean, kit::kBaselineZ * b.se);
  // Equivalence: both parts are one-sided. The growth test confirms p > 1 by itself; "p ≥ 1.5"
  // is confirmed when p̂'s one-sided lower limit at α is above 1.5 (the rule only asks that the
  // interval reaches it).
  kit::confirmation(row, "uᵀβ grows with γ (p > 1)", growth, a.mean);
  if (resolved) {
    const auto tost =
        estimators::equivalence_test({order.estimate, order.std_error, order.dof}, kReachableOrder,
                                     std::numeric_limits<double>::infinity(), alpha);
    kit::add_equivalence(
        row, 0.0, tost.passed, "order p ≥ 1.5: " + tost.description,
        estimators::minimum_detectable_error(order, kit::kPower) / kReachableOrder);
  } else {
    kit::add_equivalence(row, 0.0, false, "order p: unresolved (uᵀβ(γ) ≤ 0)",
                         std::numeric_limits<double>::infinity());
  }
  order_text = resolved ? fmt::format("{:.2f}", order.estimate) : std::string("unresolved");
  return row;
}

Row cancellation_row(const NamedProblem& np, const ScaledBias& low, const ScaledBias& high,
                     const Vector& fedavg_beta1, double alpha, double low_gamma_l,
                     double high_gamma_l, int h) {
  const Matrix a = 2.0 * low.per_replica - high.per_replica;
  const Vector v = fedavg_beta1.normalized();
  std::vector<double> projected;
  for (Eigen::Index g = 0; g < a.cols(); ++g) projected.push_back(v.dot(a.col(g)));
  const estimators::ReplicatedMean estimate = estimators::replicated_mean(projected);
  const double scale = fedavg_beta1.norm();
  const double allowance = kControlVariateMargin * scale;
  const auto test = estimators::z_agreement(estimate, 0.0, allowance, alpha);
  Row row;
  row.setting = fmt::format("{}, fedrr first-order bias cancelled, γL = {} and {}, H = {}", np.name,
                            low_gamma_l, high_gamma_l, h);
  row.predicted = fmt::format(
      "vᵀ(2β(γ) − β(2γ)) = 0 ± {:.0f} % of ‖β₁(FedAvg)‖ = {:.4f} (FedAvg's iterate: 100 %)",
      100 * kControlVariateMargin, scale);
  row.measured = fmt::format("{:.4f} ± {:.4f} ({:.0f} % of ‖β₁‖): z = {:.2f} (reject above {:.2f})",
                             estimate.mean, estimate.se, 100 * estimate.mean / scale,
                             test.statistic, estimators::z_two_sided(alpha));
  row.passed = test.passed;
  row.data = {{"problem", np.name},
              {"extrapolated_projection", estimate.mean},
              {"extrapolated_projection_se", estimate.se},
              {"relative_to_beta1", estimate.mean / scale},
              {"allowance", allowance},
              {"direction", kit::to_std(v)},
              {"alpha", alpha}};
  kit::gate(row, "extrapolated_projection", estimate.mean, kit::kBaselineZ * estimate.se);
  kit::agreement(row, kControlVariateMargin, "vᵀ(2β(γ) − β(2γ)) (scale ‖β₁(FedAvg)‖)", estimate,
                 0.0, scale, test);
  return row;
}

}  // namespace fedverify::claims::logistic
