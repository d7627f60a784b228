#include "verify/claims/logistic/richardson_rows.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "estimators/statistics/moments.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::logistic {

using theory::Algorithm;

void covariance_equivalence(Row& row, const StationaryRun& run, const Matrix& predicted,
                            double delta, const estimators::Decision& rule, double alpha) {
  const double scale = predicted.cwiseAbs().maxCoeff();
  const Vector p = vech(predicted);
  const Vector margin = Vector::Constant(p.size(), delta * scale);
  const Vector se = vech(replica_cov_mcse(run));
  const auto tost = estimators::equivalence_test(vech(run.pooled.cov), se, kReplications - 1.0,
                                                 p - margin, p + margin, alpha);
  kit::add_equivalence(row, delta, tost.passed, "cov entries (scale max |P|): " + tost.description,
                       estimators::minimum_detectable_error(rule.threshold, 0.0, se.maxCoeff(),
                                                            delta * scale, kit::kPower) /
                           scale,
                       delta);
}

void confirm_rejection(Row& row, const std::string& what, const estimators::Decision& test,
                       const Matrix& mean_cov, double scale, int replications) {
  kit::add_equivalence(row, 0.0, !test.passed, what + ": " + test.description,
                       estimators::hotelling_minimum_detectable_error(mean_cov, replications,
                                                                      test.alpha, kit::kPower) /
                           std::abs(scale));
}

Row richardson_row(const NamedProblem& np, Algorithm algorithm, double gamma_l, int h,
                   const Context& ctx, const char* claim_id, double alpha, const Vector* rejected,
                   const char* rejected_name, const MeasureOptions& options) {
  const RichardsonPair pair = richardson_pair(np, algorithm, gamma_l, h, ctx, claim_id, options);
  if (pair.diverged()) return kit::diverged_row(pair.setting, pair.divergence());
  const int g = pair.at_gamma.replications();
  const bool cv = options.estimator == Estimator::control_variate;
  const auto first = estimators::replicated_mean(pair.first);
  const auto second = estimators::replicated_mean(pair.second);
  const Vector& predicted = pair.predicted;
  Row row;
  // The rule: a point null for plain measurements, agreement within the margin for the sharp
  // control-variate ones (richardson_row in common.hpp); both record the equivalence.
  const double margin = cv ? kControlVariateMargin : kRichardsonMargin;
  const auto test = cv ? kit::agreement_within(row, margin, "β₁ (scale ‖β₁‖)", first, g, predicted,
                                               predicted.norm(), alpha)
                       : hotelling(first.mean, first.mean_cov, predicted, alpha, g);
  if (!cv) {
    kit::agreement(row, margin, "β₁ (scale ‖β₁‖)", first, g, predicted, predicted.norm(), alpha);
  }
  // Resolution: the predicted coefficient in units of the combination's standard error.
  const double signal =
      std::sqrt(predicted.dot(first.mean_cov.ldlt().solve(predicted)));  // Mahalanobis |β₁|
  const double worst_relative = (first.mean - predicted).cwiseAbs().maxCoeff() / predicted.norm();
  row.setting = pair.setting;
  row.predicted = fmt::format(
      "2β(γ) − β(2γ) = {}{}", kit::vec_str(predicted),
      cv ? fmt::format(" ± {:g} % of ‖β₁‖ = {:.4g} per coordinate", 100 * margin, predicted.norm())
         : std::string());
  row.measured = fmt::format(
      "2β(γ) − β(2γ) = {} ({} p = {:.3f}, |β₁|/SE = {:.1f}, worst coordinate off by {:.1f} % of "
      "‖β₁‖); β(γ) = {}; second-order coefficient (β(2γ) − β(γ))/γ = {}",
      kit::vec_pm(first.mean, first.mean_cov), cv ? "agreement" : "Hotelling", test.p_value, signal,
      100 * worst_relative, kit::vec_pm(pair.at_gamma.mean, pair.at_gamma.mean_cov),
      kit::vec_pm(second.mean, second.mean_cov));
  // The twin ran the algorithm whose exact mean was added back (ScaledBias::twin_mean_test).
  const bool twin_ok = pair.twin_consistent();
  if (!twin_ok) {
    row.measured += fmt::format(
        "; the twin's mean disagrees with its exact mean m_lin (p = {:.2e}, "
        "{:.2e}): the sampler does not run the algorithm",
        pair.at_gamma.twin_mean_test.p_value, pair.at_2gamma.twin_mean_test.p_value);
  }
  bool ok = test.passed && twin_ok;
  row.data = {{"problem", np.name},
              {"estimator", cv ? "control_variate" : "plain"},
              {"predicted_coefficient", kit::to_std(predicted)},
              {"richardson_coefficient", kit::to_std(first.mean)},
              {"richardson_cov", kit::rows_of(first.mean_cov)},
              {"worst_coordinate_relative", worst_relative},
              {"twin_mean_p_values",
               {pair.at_gamma.twin_mean_test.p_value, pair.at_2gamma.twin_mean_test.p_value}},
              {"p_value", test.p_value},
              {"alpha", alpha},
              {"signal_to_se", signal},
              {"second_order_coefficient", kit::to_std(second.mean)},
              {"second_order_se", kit::to_std(second.se())},
              {"runs", {run_json(pair.at_gamma), run_json(pair.at_2gamma)}},
              // For `--baseline`: first coordinate of the combination, ±kBaselineZ SE.
              {"value", first.mean(0)},
              {"tolerance", kit::kBaselineZ * std::sqrt(first.mean_cov(0, 0))}};
  kit::gate_simulated(row, "richardson_coefficient", first.mean, first.se());
  kit::gate_exact(row, "predicted_coefficient", predicted, kit::kExactRelative);
  if (rejected != nullptr) {
    const auto alt = hotelling(first.mean, first.mean_cov, *rejected, alpha, g);
    row.predicted += fmt::format(" and NOT {} = {}", rejected_name, kit::vec_str(*rejected));
    row.measured += fmt::format("; vs {}: Hotelling p = {:.2e}", rejected_name, alt.p_value);
    row.data["rejected_prediction"] = kit::to_std(*rejected);
    row.data["rejected_p_value"] = alt.p_value;
    ok = ok && !alt.passed;
    // Rejecting is a confirmation ("β₁ ≠ the rejected value"); its MDE is relative to the
    // distance between the two predictions.
    confirm_rejection(row, fmt::format("rejects {}", rejected_name), alt, first.mean_cov,
                      (*rejected - predicted).norm(), g);
  }
  row.passed = ok;
  return row;
}

Row combination_row(const std::string& setting, double margin,
                    const std::vector<RichardsonTerm>& terms, const Vector& alternative,
                    const std::string& alternative_name, double alpha) {
  for (const auto& t : terms) {
    if (t.pair->diverged()) return kit::diverged_row(setting, t.pair->divergence());
  }
  Matrix combination =
      Matrix::Zero(terms.front().pair->first.rows(), terms.front().pair->first.cols());
  Vector predicted = Vector::Zero(combination.rows());
  bool twin_ok = true;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& t : terms) {
    combination += t.coefficient * t.pair->first;
    predicted += t.coefficient * t.pair->predicted;
    twin_ok = twin_ok && t.pair->twin_consistent();
    runs.push_back(run_json(t.pair->at_gamma));
    runs.push_back(run_json(t.pair->at_2gamma));
  }
  const auto m = estimators::replicated_mean(combination);
  const Vector gap = alternative - predicted;
  const double resolution = std::sqrt(gap.dot(m.mean_cov.ldlt().solve(gap)));
  const auto g = static_cast<int>(combination.cols());
  Row row;
  // Control-variate pairs resolve the o(γ) remainders: agreement within the margin decides
  // (richardson_row); plain pairs: Hotelling's point null, with the margin's TOST beside it.
  const std::string what = "combination (scale ‖alternative − prediction‖)";
  const bool cv = terms.front().pair->control_variate();
  const auto test =
      cv ? kit::agreement_within(row, margin, what, m, g, predicted, gap.norm(), alpha)
         : replicate_test(combination, predicted, alpha);
  if (!cv) kit::agreement(row, margin, what, m, g, predicted, gap.norm(), alpha);
  row.setting = setting;
  row.predicted = kit::vec_str(predicted);
  row.measured = fmt::format(
      "{} ({} p = {:.3f}; {} at {:.1f} SE; worst coordinate off by {:.1f} % of the gap){}",
      kit::vec_pm(m.mean, m.mean_cov), cv ? "agreement" : "Hotelling", test.p_value,
      alternative_name, resolution, 100 * (m.mean - predicted).cwiseAbs().maxCoeff() / gap.norm(),
      twin_ok ? "" : "; the twin's mean disagrees with its exact mean");
  row.passed = test.passed && twin_ok;
  row.data = {{"difference", kit::to_std(m.mean)},
              {"difference_se", kit::to_std(m.se())},
              {"predicted", kit::to_std(predicted)},
              {"alternative", kit::to_std(alternative)},
              {"resolution_se", resolution},
              {"p_value", test.p_value},
              {"alpha", alpha},
              {"runs", runs}};
  kit::gate_simulated(row, "difference", m.mean, m.se());
  kit::gate_exact(row, "predicted", predicted, kit::kExactRelative);
  return row;
}

}  // namespace fedverify::claims::logistic
