#include "estimators/statistics/decide.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/non_central_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <exception>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

double z_one_sided(double alpha) {
  return boost::math::quantile(boost::math::normal(), 1.0 - alpha);
}
double z_two_sided(double alpha) { return z_one_sided(alpha / 2.0); }

namespace {

namespace bm = boost::math;

void check_alpha(double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw InputError("alpha: must lie in (0, 1), got " + std::to_string(alpha));
  }
}

void check_sizes(Eigen::Index d, Eigen::Index other, const char* field) {
  if (other != d) {
    throw InputError(std::string(field) + ": size " + std::to_string(other) +
                     " differs from the mean's " + std::to_string(d));
  }
}

// (m − p)ᵀ V⁻¹ (m − p) by Cholesky; throws when V is not positive definite.
double quadratic_form(const Vector& mean, const Matrix& mean_cov, const Vector& prediction) {
  check_sizes(mean.size(), prediction.size(), "prediction");
  if (mean_cov.rows() != mean.size() || mean_cov.cols() != mean.size()) {
    throw InputError("mean_cov: expected " + std::to_string(mean.size()) + "×" +
                     std::to_string(mean.size()));
  }
  if (!mean.allFinite() || !prediction.allFinite() || !mean_cov.allFinite()) {
    throw InputError("mean/mean_cov/prediction: non-finite entry");
  }
  const Eigen::LLT<Matrix> llt(symmetric_part(mean_cov));
  if (llt.info() != Eigen::Success) throw InputError("mean_cov: not positive definite");
  const Vector residual = mean - prediction;
  return residual.dot(llt.solve(residual));
}

// A test that rejects when `statistic` exceeds the (1 − α) quantile of its null distribution.
template <class Distribution>
Decision upper_tail_decision(const Distribution& null, double statistic, double alpha) {
  Decision decision;
  decision.alpha = alpha;
  decision.statistic = statistic;
  decision.threshold = bm::quantile(bm::complement(null, alpha));
  decision.p_value = bm::cdf(bm::complement(null, statistic));
  decision.passed = statistic <= decision.threshold;
  return decision;
}

}  // namespace

Decision wald_mean_test(const Vector& mean, const Matrix& mean_cov, const Vector& prediction,
                        double alpha) {
  check_alpha(alpha);
  const double t = quadratic_form(mean, mean_cov, prediction);
  const double dof = static_cast<double>(mean.size());
  Decision decision = upper_tail_decision(bm::chi_squared(dof), t, alpha);
  decision.description = fmt::format(
      "Wald test of mean = prediction: T = {:.4g} vs chi2_{}(1 - {:g}) = {:.4g}, p = {:.3g}", t,
      mean.size(), alpha, decision.threshold, decision.p_value);
  return decision;
}

Decision wald_mean_test(const MomentEstimate& estimate, const Vector& prediction, double alpha) {
  return wald_mean_test(estimate.mean, estimate.mean_cov, prediction, alpha);
}

Decision hotelling_mean_test(const Vector& mean, const Matrix& mean_cov, std::int64_t batches,
                             const Vector& prediction, double alpha) {
  check_alpha(alpha);
  const double d = static_cast<double>(mean.size());
  const double nu = static_cast<double>(batches) - 1.0;
  if (!(nu >= d)) {
    throw InputError("batches: Hotelling's T² needs batches − 1 ≥ d = " +
                     std::to_string(mean.size()) + ", got batches = " + std::to_string(batches));
  }
  const double t2 = quadratic_form(mean, mean_cov, prediction);
  const double f = (nu - d + 1.0) / (nu * d) * t2;
  Decision decision = upper_tail_decision(bm::fisher_f(d, nu - d + 1.0), f, alpha);
  decision.description = fmt::format(
      "Hotelling test of mean = prediction: T2 = {:.4g}, F = {:.4g} vs F_({:g},{:g})(1 - {:g}) = "
      "{:.4g}, p = {:.3g}",
      t2, f, d, nu - d + 1.0, alpha, decision.threshold, decision.p_value);
  return decision;
}

Decision hotelling_mean_test(const MomentEstimate& estimate, const Vector& prediction,
                             double alpha) {
  return hotelling_mean_test(estimate.mean, estimate.mean_cov, estimate.batches(), prediction,
                             alpha);
}

Decision bonferroni_z_test(const Vector& mean, const Vector& mcse, const Vector& prediction,
                           double alpha) {
  check_alpha(alpha);
  check_sizes(mean.size(), mcse.size(), "mcse");
  check_sizes(mean.size(), prediction.size(), "prediction");
  if (!(mcse.array() > 0.0).all() || !mcse.allFinite()) {
    throw InputError("mcse: every entry must be finite and > 0");
  }
  const double d = static_cast<double>(mean.size());
  const double z_max = ((mean - prediction).array() / mcse.array()).abs().maxCoeff();
  const bm::normal standard;
  Decision decision;
  decision.alpha = alpha;
  decision.statistic = z_max;
  decision.threshold = bm::quantile(bm::complement(standard, alpha / (2.0 * d)));
  decision.p_value = std::min(1.0, d * 2.0 * bm::cdf(bm::complement(standard, z_max)));
  decision.passed = z_max <= decision.threshold;
  decision.description = fmt::format(
      "Bonferroni z-tests of mean = prediction ({} coordinates): max |z| = {:.4g} vs z(1 - "
      "{:g}/{:g}) = {:.4g}, adjusted p = {:.3g}",
      mean.size(), z_max, alpha, 2.0 * d, decision.threshold, decision.p_value);
  return decision;
}

Decision slope_exceeds(const SlopeEstimate& fit, double s0, double alpha) {
  check_alpha(alpha);
  if (fit.n < 3)
    throw InputError("fit.n: a slope test needs ≥ 3 points, got " + std::to_string(fit.n));
  const bm::students_t dist(fit.n - 2.0);
  Decision decision;
  decision.alpha = alpha;
  decision.threshold = bm::quantile(bm::complement(dist, alpha));
  if (fit.std_error > 0.0) {
    decision.statistic = (fit.slope - s0) / fit.std_error;
    decision.p_value = bm::cdf(bm::complement(dist, decision.statistic));
  } else {  // points exactly on a line: the slope is known without error
    decision.statistic = fit.slope > s0 ? std::numeric_limits<double>::infinity()
                                        : -std::numeric_limits<double>::infinity();
    decision.p_value = fit.slope > s0 ? 0.0 : 1.0;
  }
  decision.passed = decision.statistic > decision.threshold;
  const double lower_bound = fit.slope - decision.threshold * fit.std_error;
  decision.description = fmt::format(
      "slope > {:g} with confidence 1 - {:g}: slope = {:.4g} ± {:.3g} (n = {}), one-sided lower "
      "bound {:.4g}; t = {:.4g} vs t_{}(1 - {:g}) = {:.4g}",
      s0, alpha, fit.slope, fit.std_error, fit.n, lower_bound, decision.statistic, fit.n - 2, alpha,
      decision.threshold);
  return decision;
}

Decision remainder_order_exceeds(const std::vector<double>& steps,
                                 const std::vector<double>& errors, double s0, double alpha) {
  check_alpha(alpha);
  return slope_exceeds(fit_log_log_slope(steps, errors, alpha), s0, alpha);
}

Decision matrix_agreement(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                          const Matrix& allowance, double alpha) {
  check_alpha(alpha);
  const Eigen::Index d = measured.rows();
  auto check_shape = [d](const Matrix& m, const char* field) {
    if (m.rows() != d || m.cols() != d) {
      throw InputError(std::string(field) + ": expected " + std::to_string(d) + "×" +
                       std::to_string(d) + ", got " + std::to_string(m.rows()) + "×" +
                       std::to_string(m.cols()));
    }
  };
  check_shape(measured, "measured");
  check_shape(predicted, "predicted");
  check_shape(mcse, "mcse");
  const Matrix slack = allowance.size() == 0 ? Matrix::Zero(d, d) : allowance;
  check_shape(slack, "allowance");
  if (!mcse.allFinite() || (mcse.array() < 0.0).any()) {
    throw InputError("mcse: every entry must be finite and ≥ 0");
  }
  if ((slack.array() < 0.0).any()) throw InputError("allowance: entries must be ≥ 0");

  const double entries =
      static_cast<double>(d) * static_cast<double>(d + 1) / 2.0;  // exact: d(d+1) is even
  const bm::normal standard;
  const double z = bm::quantile(bm::complement(standard, alpha / (2.0 * entries)));
  double worst = 0.0;  // max over i ≤ j of the excess over the allowance, in MCSE units
  for (Eigen::Index j = 0; j < d; ++j) {
    for (Eigen::Index i = j; i < d; ++i) {
      const double excess = std::abs(measured(i, j) - predicted(i, j)) - slack(i, j);
      if (excess <= 0.0) continue;
      const double in_mcse =
          mcse(i, j) > 0.0 ? excess / mcse(i, j) : std::numeric_limits<double>::infinity();
      worst = std::max(worst, in_mcse);
    }
  }
  Decision decision;
  decision.alpha = alpha;
  decision.statistic = worst;
  decision.threshold = z;
  decision.p_value = std::min(1.0, entries * 2.0 * bm::cdf(bm::complement(standard, worst)));
  decision.passed = worst <= z;
  decision.description = fmt::format(
      "entrywise agreement of {}×{} matrices: max (|M - P| - allowance)+/MCSE = {:.4g} vs z(1 - "
      "{:g}/{:g}) = {:.4g}",
      d, d, worst, alpha, 2.0 * entries, z);
  return decision;
}

namespace {

// 1 − Φ(z), the upper tail of the standard normal.
double normal_upper_tail(double z) { return bm::cdf(bm::complement(bm::normal(), z)); }

// The reference distribution of a statistic (estimate − θ)/se: Student's t with `dof` degrees
// of freedom when se is estimated from replications (dof > 0), the standard normal otherwise.
// With se from G = 20 replications the normal quantile at a two-sided 8e-4 is 3.35 where t₁₉'s
// is 4.0: the normal reference would quadruple the false-alarm rate.
double upper_quantile(double tail, double dof) {  // q with P(T > q) = tail
  if (dof > 0) return bm::quantile(bm::complement(bm::students_t(dof), tail));
  return z_one_sided(tail);
}
double upper_tail(double statistic, double dof) {
  if (dof > 0) return bm::cdf(bm::complement(bm::students_t(dof), statistic));
  return normal_upper_tail(statistic);
}

// Welch–Satterthwaite degrees of freedom of a sum of two independent variance components
// v_a, v_b estimated with dof_a, dof_b degrees of freedom; 0 (normal) when either is known.
double welch_dof(double v_a, double dof_a, double v_b, double dof_b) {
  if (!(dof_a > 0) || !(dof_b > 0)) return 0.0;
  const double denominator = v_a * v_a / dof_a + v_b * v_b / dof_b;
  return denominator > 0 ? (v_a + v_b) * (v_a + v_b) / denominator : std::min(dof_a, dof_b);
}

// A zero standard error is allowed (the statistic is then ±∞ or NaN and the verdict follows
// the rule's inequality); a negative or non-finite one is an input error.
void check_se(double se, const char* field) {
  if (!(se >= 0.0) || !std::isfinite(se)) {
    throw InputError(std::string(field) + ": the standard error must be finite and ≥ 0");
  }
}

}  // namespace

Decision z_agreement(const ReplicatedMean& estimate, double predicted, double allowance,
                     double alpha) {
  check_alpha(alpha);
  check_se(estimate.se, "estimate.se");
  if (!(allowance >= 0.0)) throw InputError("allowance: must be ≥ 0");
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = estimate.mean;
  decision.std_error = estimate.se;
  const double excess = std::max(0.0, std::abs(estimate.mean - predicted) - allowance);
  decision.statistic = excess / estimate.se;
  decision.threshold = upper_quantile(alpha / 2.0, estimate.dof);
  decision.dof = estimate.dof;
  decision.allowance = allowance;
  decision.lower = estimate.mean - decision.threshold * estimate.se;
  decision.upper = estimate.mean + decision.threshold * estimate.se;
  decision.p_value = std::min(1.0, 2.0 * upper_tail(decision.statistic, estimate.dof));
  decision.passed = decision.statistic <= decision.threshold;
  decision.description = fmt::format(
      "z test of estimate = {:.6g} ± {:.3g} (allowance): z = {:.4g} beyond the allowance vs "
      "z(1 - {:g}/2) = {:.4g}",
      predicted, allowance, decision.statistic, alpha, decision.threshold);
  return decision;
}

const char* to_string(Ordering verdict) {
  switch (verdict) {
    case Ordering::holds:
      return "holds";
    case Ordering::fails:
      return "fails";
    case Ordering::inconclusive:
      break;
  }
  return "inconclusive";
}

OrderingDecision ordering_verdict(const std::vector<ReplicatedMean>& differences, double alpha) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  check_alpha(alpha);
  if (differences.empty()) throw InputError("differences: an ordering needs at least one");
  OrderingDecision out;
  out.alpha = alpha;
  const double each = alpha / static_cast<double>(differences.size());
  bool all_below = true;
  bool some_above = false;
  for (const ReplicatedMean& d : differences) {
    if (!(d.se >= 0.0) || !std::isfinite(d.mean)) {
      throw InputError("differences: need finite means and standard errors >= 0");
    }
    Decision interval;
    interval.alpha = each;
    interval.estimate = d.mean;
    interval.std_error = d.se;
    interval.dof = d.dof;
    interval.threshold = upper_quantile(each / 2.0, d.dof);
    interval.lower = d.mean - interval.threshold * d.se;
    interval.upper = d.mean + interval.threshold * d.se;
    interval.statistic = d.se > 0 ? d.mean / d.se : (d.mean < 0 ? -kInfinity : kInfinity);
    interval.p_value = d.se > 0 ? upper_tail(-interval.statistic, d.dof) : (d.mean < 0 ? 0.0 : 1.0);
    interval.passed = interval.upper < 0.0;
    interval.description = fmt::format(
        "difference {:.4g} ± {:.3g}: interval [{:.4g}, {:.4g}] at t(1 - {:.3g}/2, {:g})", d.mean,
        d.se, interval.lower, interval.upper, each, d.dof);
    all_below = all_below && interval.upper < 0.0;
    some_above = some_above || interval.lower > 0.0;
    out.intervals.push_back(std::move(interval));
  }
  out.verdict = some_above ? Ordering::fails : all_below ? Ordering::holds : Ordering::inconclusive;
  return out;
}

Decision ratio_z_test(const ReplicatedMean& num, const ReplicatedMean& den, double predicted,
                      double alpha) {
  check_alpha(alpha);
  if (!(num.mean > 0.0) || !(den.mean > 0.0)) {
    throw InputError("num/den: a ratio test needs positive means");
  }
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = num.mean / den.mean;
  decision.std_error = decision.estimate * std::hypot(num.se / num.mean, den.se / den.mean);
  check_se(decision.std_error, "ratio se");
  const double dof =
      welch_dof(std::pow(num.se / num.mean, 2), num.dof, std::pow(den.se / den.mean, 2), den.dof);
  decision.statistic = (decision.estimate - predicted) / decision.std_error;
  decision.threshold = upper_quantile(alpha / 2.0, dof);
  decision.dof = dof;
  decision.lower = decision.estimate - decision.threshold * decision.std_error;
  decision.upper = decision.estimate + decision.threshold * decision.std_error;
  decision.p_value = std::min(1.0, 2.0 * upper_tail(std::abs(decision.statistic), dof));
  decision.passed = std::abs(decision.statistic) <= decision.threshold;
  decision.description = fmt::format(
      "z test of ratio = {:.6g}: {:.6g} ± {:.3g}, z = {:.4g} vs ±z(1 - {:g}/2) = {:.4g}", predicted,
      decision.estimate, decision.std_error, decision.statistic, alpha, decision.threshold);
  return decision;
}

Decision difference_exceeds(const ReplicatedMean& low, const ReplicatedMean& high, double alpha) {
  check_alpha(alpha);
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = high.mean - low.mean;
  decision.std_error = std::hypot(low.se, high.se);
  check_se(decision.std_error, "difference se");
  const double dof = welch_dof(low.se * low.se, low.dof, high.se * high.se, high.dof);
  decision.statistic = (high.mean - low.mean) / decision.std_error;
  decision.threshold = upper_quantile(alpha, dof);
  decision.dof = dof;
  decision.lower = decision.estimate - decision.threshold * decision.std_error;
  decision.upper = std::numeric_limits<double>::infinity();
  decision.p_value = upper_tail(decision.statistic, dof);
  decision.passed = decision.statistic > decision.threshold;
  decision.description = fmt::format(
      "one-sided z test of high > low: difference {:.6g} ± {:.3g}, z = {:.4g} vs z(1 - {:g}) = "
      "{:.4g}",
      decision.estimate, decision.std_error, decision.statistic, alpha, decision.threshold);
  return decision;
}

Decision doubling_order_reaches(const ReplicatedMean& low, const ReplicatedMean& high, double p0,
                                double alpha) {
  check_alpha(alpha);
  Decision decision;
  decision.alpha = alpha;
  if (!(low.mean > 0 && high.mean > 0)) {
    decision.threshold = z_two_sided(alpha);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    decision.estimate = decision.std_error = decision.lower = decision.upper = nan;
    decision.statistic = nan;
    decision.p_value = 1.0;
    decision.passed = true;
    decision.description = "order from a doubled step: not both measurements positive, no p̂";
    return decision;
  }
  decision.estimate = 1.0 + std::log2(high.mean / low.mean);
  decision.std_error = std::hypot(low.se / low.mean, high.se / high.mean) / std::numbers::ln2;
  const double dof = welch_dof(std::pow(low.se / low.mean, 2), low.dof,
                               std::pow(high.se / high.mean, 2), high.dof);
  decision.threshold = upper_quantile(alpha / 2.0, dof);
  decision.dof = dof;
  decision.lower = decision.estimate - decision.threshold * decision.std_error;
  decision.upper = decision.estimate + decision.threshold * decision.std_error;
  decision.statistic = (decision.estimate - p0) / decision.std_error;
  decision.p_value = upper_tail(-decision.statistic, dof);  // P(T ≤ t): "p ≥ p0" rejected
  decision.passed = decision.upper >= p0;
  decision.description = fmt::format(
      "order from a doubled step: p = {:.4g} [{:.4g}, {:.4g}] ({:g} two-sided) reaches {:g}",
      decision.estimate, decision.lower, decision.upper, alpha, p0);
  return decision;
}

Decision jackknife_exceeds(double estimate, const std::vector<double>& leave_one_out, double s0,
                           double alpha) {
  check_alpha(alpha);
  if (leave_one_out.size() < 2) {
    throw InputError("leave_one_out: the jackknife needs at least 2 replications");
  }
  const auto g = static_cast<double>(leave_one_out.size());
  double centre = 0;
  for (double v : leave_one_out) centre += v;
  centre /= g;
  double spread = 0;
  for (double v : leave_one_out) spread += (v - centre) * (v - centre);
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = estimate;
  decision.std_error = std::sqrt((g - 1.0) / g * spread);
  decision.threshold = upper_quantile(alpha, g - 1.0);  // the jackknife's t_{G−1} reference
  decision.dof = g - 1.0;
  decision.lower = estimate - decision.threshold * decision.std_error;
  decision.upper = std::numeric_limits<double>::infinity();
  decision.statistic = (estimate - s0) / decision.std_error;
  decision.p_value = upper_tail(decision.statistic, g - 1.0);
  decision.passed = decision.lower > s0;
  decision.description = fmt::format(
      "jackknife one-sided test of estimate > {:g}: {:.4g} ± {:.3g} (G = {}), lower bound {:.4g} "
      "at z(1 - {:g}) = {:.4g}",
      s0, estimate, decision.std_error, leave_one_out.size(), decision.lower, alpha,
      decision.threshold);
  return decision;
}

Decision mean_at_most(const ReplicatedMean& estimate, double bound, double alpha) {
  check_alpha(alpha);
  check_se(estimate.se, "estimate.se");
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = estimate.mean;
  decision.std_error = estimate.se;
  decision.threshold = upper_quantile(alpha, estimate.dof);
  decision.dof = estimate.dof;
  decision.statistic = (estimate.mean - bound) / estimate.se;
  decision.lower = estimate.mean - decision.threshold * estimate.se;
  decision.upper = std::numeric_limits<double>::infinity();
  decision.p_value = upper_tail(decision.statistic, estimate.dof);
  decision.passed = !(decision.lower > bound);
  decision.description = fmt::format(
      "one-sided z test of mean ≤ {:.6g}: {:.6g} ± {:.3g}, z = {:.4g} vs z(1 - {:g}) = {:.4g}",
      bound, estimate.mean, estimate.se, decision.statistic, alpha, decision.threshold);
  return decision;
}

Decision slope_interval_contains(const SlopeEstimate& fit, double s0) {
  check_alpha(fit.alpha);
  if (fit.n < 3) {
    throw InputError("fit.n: a slope test needs ≥ 3 points, got " + std::to_string(fit.n));
  }
  const bm::students_t dist(fit.n - 2.0);
  Decision decision;
  decision.alpha = fit.alpha;
  decision.estimate = fit.slope;
  decision.std_error = fit.std_error;
  decision.lower = fit.lower;
  decision.upper = fit.upper;
  decision.threshold = bm::quantile(bm::complement(dist, fit.alpha / 2.0));
  decision.dof = fit.n - 2.0;
  decision.statistic = fit.std_error > 0.0 ? (fit.slope - s0) / fit.std_error
                       : fit.slope == s0   ? 0.0
                                           : std::numeric_limits<double>::infinity();
  decision.p_value =
      std::min(1.0, 2.0 * bm::cdf(bm::complement(dist, std::abs(decision.statistic))));
  decision.passed = fit.lower <= s0 && s0 <= fit.upper;
  decision.description =
      fmt::format("slope = {:g} at two-sided level {:g}: slope = {:.4g} [{:.4g}, {:.4g}] (n = {})",
                  s0, fit.alpha, fit.slope, fit.lower, fit.upper, fit.n);
  return decision;
}

namespace {

// (estimate − end)/se with a zero standard error allowed: ±∞ off the end, 0 on it (an exact
// value on the end of the interval is not strictly inside it).
double studentised(double excess, double se) {
  if (se > 0.0) return excess / se;
  if (excess > 0.0) return std::numeric_limits<double>::infinity();
  return excess < 0.0 ? -std::numeric_limits<double>::infinity() : 0.0;
}

void check_interval(double lower, double upper) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper) {
    throw InputError("lower/upper: the equivalence interval must be non-empty, got [" +
                     std::to_string(lower) + ", " + std::to_string(upper) + "]");
  }
}

void check_power(double power) {
  if (!(power > 0.0 && power < 1.0)) {
    throw InputError("power: must lie in (0, 1), got " + std::to_string(power));
  }
}

// The TOST statistic of one coordinate: min(t_L, t_U).
double tost_statistic(double estimate, double se, double lower, double upper) {
  return std::min(studentised(estimate - lower, se), studentised(upper - estimate, se));
}

}  // namespace

Decision equivalence_test(const ReplicatedMean& estimate, double lower, double upper,
                          double alpha) {
  check_alpha(alpha);
  check_se(estimate.se, "estimate.se");
  check_interval(lower, upper);
  if (!std::isfinite(estimate.mean)) throw InputError("estimate: must be finite");
  Decision decision;
  decision.alpha = alpha;
  decision.estimate = estimate.mean;
  decision.std_error = estimate.se;
  decision.dof = estimate.dof;
  decision.threshold = upper_quantile(alpha, estimate.dof);
  decision.statistic = tost_statistic(estimate.mean, estimate.se, lower, upper);
  decision.p_value = upper_tail(decision.statistic, estimate.dof);
  decision.lower = estimate.mean - decision.threshold * estimate.se;
  decision.upper = estimate.mean + decision.threshold * estimate.se;
  decision.passed = decision.statistic > decision.threshold;
  decision.description = fmt::format(
      "TOST of {:.6g} <= E <= {:.6g}: {:.6g} ± {:.3g}, {:g} % interval [{:.6g}, {:.6g}], min t = "
      "{:.4g} vs t(1 - {:g}) = {:.4g}",
      lower, upper, estimate.mean, estimate.se, 100.0 * (1.0 - 2.0 * alpha), decision.lower,
      decision.upper, decision.statistic, alpha, decision.threshold);
  return decision;
}

Decision equivalence_test(const Vector& estimate, const Vector& se, double dof, const Vector& lower,
                          const Vector& upper, double alpha) {
  check_alpha(alpha);
  check_sizes(estimate.size(), se.size(), "se");
  check_sizes(estimate.size(), lower.size(), "lower");
  check_sizes(estimate.size(), upper.size(), "upper");
  if (estimate.size() == 0) throw InputError("estimate: needs at least one coordinate");
  Eigen::Index worst = 0;
  double worst_t = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < estimate.size(); ++i) {
    check_se(se(i), "se");
    check_interval(lower(i), upper(i));
    if (!std::isfinite(estimate(i))) throw InputError("estimate: must be finite");
    const double t = tost_statistic(estimate(i), se(i), lower(i), upper(i));
    if (t < worst_t) worst_t = t, worst = i;
  }
  Decision decision = equivalence_test(ReplicatedMean{estimate(worst), se(worst), dof},
                                       lower(worst), upper(worst), alpha);
  decision.description = fmt::format(
      "TOST on {} coordinates (intersection-union, each at alpha = {:g}): least equivalent "
      "coordinate {}: {}",
      estimate.size(), alpha, worst, decision.description);
  return decision;
}

double minimum_detectable_error(double critical, double dof, double se, double allowance,
                                double power) {
  check_power(power);
  check_se(se, "se");
  if (!(allowance >= 0.0) || !std::isfinite(allowance)) {
    throw InputError("allowance: must be finite and ≥ 0");
  }
  if (!std::isfinite(critical)) throw InputError("critical: must be finite");
  return allowance + (critical + upper_quantile(1.0 - power, dof)) * se;
}

double minimum_detectable_error(const Decision& test, double power) {
  return minimum_detectable_error(test.threshold, test.dof, test.std_error, test.allowance, power);
}

double hotelling_minimum_detectable_error(const Matrix& mean_cov, std::int64_t batches,
                                          double alpha, double power) {
  check_alpha(alpha);
  check_power(power);
  const double d = static_cast<double>(mean_cov.rows());
  const double nu = static_cast<double>(batches) - 1.0;
  if (mean_cov.rows() == 0 || mean_cov.cols() != mean_cov.rows() || !mean_cov.allFinite()) {
    throw InputError("mean_cov: must be a finite non-empty square matrix");
  }
  if (!(nu >= d)) {
    throw InputError(
        "batches: Hotelling's T² needs batches − 1 ≥ d = " + std::to_string(mean_cov.rows()) +
        ", got batches = " + std::to_string(batches));
  }
  const double df2 = nu - d + 1.0;
  const double f_critical = bm::quantile(bm::complement(bm::fisher_f(d, df2), alpha));
  const auto power_gap = [&](double lambda) {
    return bm::cdf(bm::complement(bm::non_central_f(d, df2, lambda), f_critical)) - power;
  };
  double high = 1.0;
  while (power_gap(high) < 0.0) high *= 2.0;  // power → 1 as λ → ∞: terminates
  std::uintmax_t iterations = 200;
  const auto root = bm::tools::toms748_solve(power_gap, 0.0, high, power_gap(0.0), power_gap(high),
                                             bm::tools::eps_tolerance<double>(34), iterations);
  const double lambda = 0.5 * (root.first + root.second);
  const double top =
      Eigen::SelfAdjointEigenSolver<Matrix>(symmetric_part(mean_cov)).eigenvalues().maxCoeff();
  return std::sqrt(lambda * std::max(top, 0.0));
}

NullCalibration calibrate_mean_test(
    const std::function<MomentEstimate(std::uint64_t seed)>& run_one_seed, const Vector& true_mean,
    int seeds, double alpha, MeanTest test, double confidence, std::uint64_t first_seed) {
  check_alpha(alpha);
  if (seeds < 1) throw InputError("seeds: must be ≥ 1, got " + std::to_string(seeds));
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw InputError("confidence: must lie in (0, 1), got " + std::to_string(confidence));
  }
  std::vector<MomentEstimate> estimates(static_cast<std::size_t>(seeds));
  std::vector<char> rejected(static_cast<std::size_t>(seeds), 0);
  const auto calibrate_one_seed = [&](int s) {
    MomentEstimate est = run_one_seed(first_seed + static_cast<std::uint64_t>(s));
    Decision decision;
    switch (test) {
      case MeanTest::wald:
        decision = wald_mean_test(est, true_mean, alpha);
        break;
      case MeanTest::hotelling:
        decision = hotelling_mean_test(est, true_mean, alpha);
        break;
      case MeanTest::bonferroni:
        decision = bonferroni_z_test(est.mean, est.mean_mcse, true_mean, alpha);
        break;
    }
    rejected[static_cast<std::size_t>(s)] = decision.passed ? 0 : 1;
    estimates[static_cast<std::size_t>(s)] = std::move(est);
  };
  // An exception may not leave the parallel region (std::terminate): kept per seed, rethrown
  // after it, the lowest seed's first.
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(seeds));
#pragma omp parallel for schedule(dynamic)
  for (int s = 0; s < seeds; ++s) {
    try {
      calibrate_one_seed(s);
    } catch (...) {
      errors[static_cast<std::size_t>(s)] = std::current_exception();
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }

  NullCalibration out;
  out.seeds = seeds;
  out.alpha = alpha;
  out.confidence = confidence;
  const Eigen::Index d = true_mean.size();
  Vector squared_error = Vector::Zero(d);
  Vector squared_mcse = Vector::Zero(d);
  for (int s = 0; s < seeds; ++s) {  // serial, in seed order: thread-count independent
    const MomentEstimate& est = estimates[static_cast<std::size_t>(s)];
    out.rejections += rejected[static_cast<std::size_t>(s)];
    squared_error += (est.mean - true_mean).cwiseAbs2();
    squared_mcse += est.mean_mcse.cwiseAbs2();
  }
  out.rate = static_cast<double>(out.rejections) / seeds;
  const double tail = (1.0 - confidence) / 2.0;
  using bm::binomial_distribution;
  out.rate_lower = binomial_distribution<>::find_lower_bound_on_p(seeds, out.rejections, tail);
  out.rate_upper = binomial_distribution<>::find_upper_bound_on_p(seeds, out.rejections, tail);
  out.rate_consistent = out.rate_lower <= alpha && alpha <= out.rate_upper;
  out.rmse = (squared_error / seeds).cwiseSqrt();
  out.rms_mcse = (squared_mcse / seeds).cwiseSqrt();
  out.mcse_ratio = out.rms_mcse.cwiseQuotient(out.rmse);
  out.description = fmt::format(
      "{} of {} seeds rejected at alpha = {:g}: rate {:.4f}, {:g} % Clopper-Pearson interval "
      "[{:.4f}, {:.4f}]; RMS MCSE / RMSE per coordinate: {:.3f}",
      out.rejections, seeds, alpha, out.rate, 100.0 * confidence, out.rate_lower, out.rate_upper,
      fmt::join(out.mcse_ratio.data(), out.mcse_ratio.data() + d, ", "));
  return out;
}

}  // namespace fedverify::estimators
