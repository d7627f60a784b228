#include "verify/claims/kit/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimators/statistics/sample_size.hpp"

namespace fedverify::claims::kit {
namespace {

std::string margin_text(double delta) {
  return delta > 0 ? fmt::format("±{:g} %", 100.0 * delta) : std::string("one-sided");
}

}  // namespace

void add_equivalence(Row& row, double delta, bool confirmed, const std::string& what,
                     double relative_mde, double relative_allowance) {
  Equivalence& e = row.equivalence;
  if (!e.statistical()) {
    e.margin = delta;
    e.margin_text = margin_text(delta);
    e.confirmed = confirmed;
    e.mde = relative_mde;
  } else {
    if (delta != e.margin) {
      const std::string text = margin_text(delta);
      if (e.margin_text.find(text) == std::string::npos) e.margin_text += ", " + text;
      e.margin = std::max(e.margin, delta);
    }
    e.confirmed = e.confirmed && confirmed;
    e.mde = std::isnan(e.mde) ? relative_mde : std::max(e.mde, relative_mde);
  }
  const double multiple =
      confirmed ? 0.0 : estimators::stein_budget_multiple(relative_mde, delta, relative_allowance);
  e.budget_multiple = std::max(e.budget_multiple, multiple);
  const std::string advice = estimators::budget_advice(multiple);
  e.tests.push_back(fmt::format("{}: {} (MDE {:.3g} relative{})", what,
                                confirmed ? "confirmed" : "not confirmed", relative_mde,
                                advice.empty() ? "" : "; " + advice));
}

void agreement(Row& row, double delta, const std::string& what,
               const estimators::ReplicatedMean& estimate, double predicted, double scale,
               const estimators::Decision& rule) {
  const double margin = delta * std::abs(scale);
  const auto tost =
      estimators::equivalence_test(estimate, predicted - margin, predicted + margin, rule.alpha);
  add_equivalence(row, delta, tost.passed, what + ": " + tost.description,
                  estimators::minimum_detectable_error(rule, kPower) / std::abs(scale),
                  rule.allowance / std::abs(scale));
}

void agreement(Row& row, double delta, const std::string& what,
               const estimators::ReplicatedMeanVector& estimate, std::int64_t replications,
               const Vector& predicted, double scale, double alpha) {
  const Vector margin = Vector::Constant(predicted.size(), delta * std::abs(scale));
  const auto tost = estimators::equivalence_test(estimate.mean, estimate.se(),
                                                 static_cast<double>(replications - 1),
                                                 predicted - margin, predicted + margin, alpha);
  const double mde = estimators::hotelling_minimum_detectable_error(estimate.mean_cov, replications,
                                                                    alpha, kPower);
  add_equivalence(row, delta, tost.passed, what + ": " + tost.description, mde / std::abs(scale));
}

void confirmation(Row& row, const std::string& what, const estimators::Decision& rule,
                  double scale) {
  add_equivalence(row, 0.0, rule.passed, what + ": " + rule.description,
                  estimators::minimum_detectable_error(rule, kPower) / std::abs(scale));
}

estimators::Decision agreement_within(Row& row, double delta, const std::string& what,
                                      const estimators::ReplicatedMeanVector& estimate,
                                      std::int64_t replications, const Vector& predicted,
                                      double scale, double alpha) {
  const double margin = delta * std::abs(scale);
  const auto d = predicted.size();
  const double dof = static_cast<double>(replications - 1);
  const Vector se = estimate.se();
  estimators::Decision worst;
  double worst_mde = 0;
  bool all_passed = true;
  for (Eigen::Index i = 0; i < d; ++i) {
    const auto rule = estimators::z_agreement({estimate.mean(i), se(i), dof}, predicted(i), margin,
                                              alpha / static_cast<double>(d));
    all_passed = all_passed && rule.passed;
    if (i == 0 || rule.statistic > worst.statistic) worst = rule;
    worst_mde = std::max(worst_mde, estimators::minimum_detectable_error(rule, kPower));
  }
  worst.passed = all_passed;
  const Vector margins = Vector::Constant(d, margin);
  const auto tost = estimators::equivalence_test(estimate.mean, se, dof, predicted - margins,
                                                 predicted + margins, alpha);
  add_equivalence(row, delta, tost.passed, what + ": " + tost.description,
                  worst_mde / std::abs(scale), delta);
  return worst;
}

}  // namespace fedverify::claims::kit
