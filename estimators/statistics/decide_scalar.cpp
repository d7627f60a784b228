// The rules on replicated scalar estimates (decide.hpp (e)–(k)): agreement within an allowance,
// orderings, ratios, differences, doubling orders, jackknife bounds, upper bounds and slope
// intervals, split from decide.cpp by concept.
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/decide_internal.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

namespace bm = boost::math;
using decide_internal::check_alpha;
using decide_internal::check_se;
using decide_internal::upper_quantile;
using decide_internal::upper_tail;

namespace {

// Welch–Satterthwaite degrees of freedom of a sum of two independent variance components
// v_a, v_b estimated with dof_a, dof_b degrees of freedom; 0 (normal) when either is known.
double welch_dof(double v_a, double dof_a, double v_b, double dof_b) {
  if (!(dof_a > 0) || !(dof_b > 0)) return 0.0;
  const double denominator = v_a * v_a / dof_a + v_b * v_b / dof_b;
  return denominator > 0 ? (v_a + v_b) * (v_a + v_b) / denominator : std::min(dof_a, dof_b);
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

}  // namespace fedverify::estimators
