#include "estimators/statistics/gaussian_covariance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "estimators/statistics/decide_internal.hpp"
#include "estimators/statistics/wasserstein.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

// One draw of W ~ Wishart_d(n, I) (then R W Rᵀ ~ Wishart_d(n, Σ)).
Matrix standard_wishart(Eigen::Index d, std::int64_t n, Stream& stream) {
  if (n < d) {  // singular: W = X Xᵀ with X d × n standard normal
    Matrix x(d, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index i = 0; i < d; ++i) x(i, j) = stream.normal();
    }
    return x * x.transpose();
  }
  Matrix a = Matrix::Zero(d, d);  // Bartlett: A_ii² ~ χ²_{n−i}, A_ij ~ N(0, 1) for i > j
  for (Eigen::Index i = 0; i < d; ++i) {
    const boost::math::chi_squared chi2(static_cast<double>(n - i));
    a(i, i) = std::sqrt(boost::math::quantile(chi2, stream.uniform()));
    for (Eigen::Index j = 0; j < i; ++j) a(i, j) = stream.normal();
  }
  return a * a.transpose();
}

}  // namespace

Matrix gaussian_sample_cov_mcse(const Matrix& cov, std::int64_t samples) {
  Matrix m(cov.rows(), cov.cols());
  for (Eigen::Index i = 0; i < cov.rows(); ++i) {
    for (Eigen::Index j = 0; j < cov.cols(); ++j) {
      m(i, j) =
          std::sqrt((cov(i, j) * cov(i, j) + cov(i, i) * cov(j, j)) / static_cast<double>(samples));
    }
  }
  return m;
}

Decision gaussian_covariance_agreement(const Matrix& sample_cov, const Matrix& cov,
                                       std::int64_t samples, double alpha, std::uint64_t seed) {
  decide_internal::check_alpha(alpha);
  const Eigen::Index d = cov.rows();
  if (cov.cols() != d || sample_cov.rows() != d || sample_cov.cols() != d) {
    throw InputError(fmt::format("sample_cov: expected {}×{} like cov", d, d));
  }
  if (samples < 2) throw InputError(fmt::format("samples: must be ≥ 2, got {}", samples));
  const Matrix mcse = gaussian_sample_cov_mcse(cov, samples);
  const Matrix none = Matrix::Zero(d, d);
  const double statistic = decide_internal::entrywise_excess(sample_cov, cov, mcse, none);
  const int replicates = static_cast<int>(std::clamp(
      std::ceil(kCalibrationExceedances / alpha), static_cast<double>(kMinCalibrationReplicates),
      static_cast<double>(kMaxCalibrationReplicates)));
  const Matrix root = psd_sqrt(cov);  // R Rᵀ = Σ, Σ may be singular
  const std::int64_t n = samples - 1;
  std::vector<double> null(static_cast<std::size_t>(replicates));
  int at_least = 0;  // null draws ≥ the statistic
  for (int r = 0; r < replicates; ++r) {
    Stream stream(seed, Purpose::calibration, static_cast<std::uint64_t>(r));
    const Matrix s = root * standard_wishart(d, n, stream) * root / static_cast<double>(n);
    null[static_cast<std::size_t>(r)] = decide_internal::entrywise_excess(s, cov, mcse, none);
    at_least += null[static_cast<std::size_t>(r)] >= statistic ? 1 : 0;
  }
  // The (1 − α) quantile: the ⌈(1 − α)(M + 1)⌉-th smallest draw (M + 1 - th: +∞).
  const auto rank = static_cast<std::size_t>(std::ceil((1 - alpha) * (replicates + 1))) - 1;
  Decision decision;
  decision.alpha = alpha;
  decision.statistic = statistic;
  if (rank < null.size()) {
    std::nth_element(null.begin(), null.begin() + static_cast<std::ptrdiff_t>(rank), null.end());
    decision.threshold = null[rank];
  } else {
    decision.threshold = std::numeric_limits<double>::infinity();
  }
  decision.p_value = (1.0 + at_least) / (replicates + 1.0);
  decision.passed = statistic <= decision.threshold;
  decision.description = fmt::format(
      "entrywise agreement of a {}×{} Gaussian sample covariance (K = {}): max |S - Sigma|/MCSE "
      "= {:.4g} vs the exact null's (1 - {:g}) quantile {:.4g} ({} Wishart draws)",
      d, d, samples, statistic, alpha, decision.threshold, replicates);
  return decision;
}

}  // namespace fedverify::estimators
