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

#include "estimators/statistics/decide_internal.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

double z_one_sided(double alpha) {
  return boost::math::quantile(boost::math::normal(), 1.0 - alpha);
}
double z_two_sided(double alpha) { return z_one_sided(alpha / 2.0); }
double t_two_sided(double alpha, double dof) {
  decide_internal::check_alpha(alpha);
  return decide_internal::upper_quantile(alpha / 2.0, dof);
}

using decide_internal::check_alpha;
using decide_internal::check_sizes;
using decide_internal::entrywise_excess;

namespace {

namespace bm = boost::math;

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
  return matrix_agreement(measured, predicted, mcse, allowance, alpha, 0.0);
}

Decision matrix_agreement(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                          const Matrix& allowance, double alpha, double dof) {
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
  const double tail = alpha / (2.0 * entries);
  const double z = dof > 0 ? bm::quantile(bm::complement(bm::students_t(dof), tail))
                           : bm::quantile(bm::complement(standard, tail));
  const double worst = entrywise_excess(measured, predicted, mcse, slack);
  Decision decision;
  decision.alpha = alpha;
  decision.dof = dof;
  decision.statistic = worst;
  decision.threshold = z;
  decision.p_value =
      std::min(1.0, entries * 2.0 *
                        (dof > 0 ? bm::cdf(bm::complement(bm::students_t(dof), worst))
                                 : bm::cdf(bm::complement(standard, worst))));
  decision.passed = worst <= z;
  decision.description = fmt::format(
      "entrywise agreement of {}×{} matrices: max (|M - P| - allowance)+/MCSE = {:.4g} vs {}(1 - "
      "{:g}/{:g}) = {:.4g}",
      d, d, worst, dof > 0 ? fmt::format("t_{:g}", dof) : std::string("z"), alpha, 2.0 * entries,
      z);
  return decision;
}

namespace {

// 1 − Φ(z), the upper tail of the standard normal.
double normal_upper_tail(double z) { return bm::cdf(bm::complement(bm::normal(), z)); }

}  // namespace

namespace decide_internal {

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

void check_se(double se, const char* field) {
  if (!(se >= 0.0) || !std::isfinite(se)) {
    throw InputError(std::string(field) + ": the standard error must be finite and ≥ 0");
  }
}

double upper_quantile(double tail, double dof) {
  if (dof > 0) return bm::quantile(bm::complement(bm::students_t(dof), tail));
  return z_one_sided(tail);
}

double upper_tail(double statistic, double dof) {
  if (dof > 0) return bm::cdf(bm::complement(bm::students_t(dof), statistic));
  return normal_upper_tail(statistic);
}

double entrywise_excess(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                        const Matrix& slack) {
  double worst = 0.0;  // max over i ≤ j of the excess over the allowance, in MCSE units
  for (Eigen::Index j = 0; j < measured.cols(); ++j) {
    for (Eigen::Index i = j; i < measured.rows(); ++i) {
      const double excess = std::abs(measured(i, j) - predicted(i, j)) - slack(i, j);
      if (excess <= 0.0) continue;
      const double in_mcse =
          mcse(i, j) > 0.0 ? excess / mcse(i, j) : std::numeric_limits<double>::infinity();
      worst = std::max(worst, in_mcse);
    }
  }
  return worst;
}

}  // namespace decide_internal

}  // namespace fedverify::estimators
