// The equivalence tests (decide.hpp (l)), minimum detectable errors ((m)) and the calibration of
// the mean tests, split from decide.cpp by concept.
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
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/decide_internal.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

namespace bm = boost::math;
using decide_internal::check_alpha;
using decide_internal::check_se;
using decide_internal::check_sizes;
using decide_internal::upper_quantile;
using decide_internal::upper_tail;

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
