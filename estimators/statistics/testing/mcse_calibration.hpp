// Calibration of the batch-means MCSE against the exact standard deviation of the mean (tests
// only): G independent replications of a run whose exact Var(mean) is known (THEORY F5a for
// linear chains; estimators/statistics/testing/ar1.hpp for AR(1)), and an equivalence decision on
// the ratio.
//
// Per coordinate i, over replications g = 1..G with MCSE m_g and error e_g = mean_g − true mean:
//   ratio     R = √(mean_g m_g²) / s_i,   s_i = the exact sd of the mean;
//   se(R)     = R · sd_g(m_g²) / (2 √G · mean_g m_g²)   (delta method, √ of a mean of G i.i.d.);
//   empirical RMSE/s_i = √(mean_g e_g²) / s_i, relative se ≈ 1/√(2G) (Gaussian errors).
// R compares E[MCSE²] with the exact variance: E[R²] = 1 is a calibrated MCSE. Dividing by the
// exact s_i rather than the empirical RMSE removes the RMSE's own sampling error (3.5 % at
// G = 400), which would otherwise dominate a ±10 % decision.
#pragma once

#include <fmt/format.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "estimators/statistics/moments.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::verify {

struct McseCalibration {
  int replications = 0;
  Vector ratio;       // R per coordinate
  Vector ratio_se;    // se(R)
  Vector rmse_ratio;  // empirical RMSE / exact sd
  double rmse_ratio_se = 0;
  int batch_rounds_first = 0;  // batch length of the first replication (for the record)

  std::string describe(int i) const {
    return fmt::format("MCSE/exact sd {:.3f} ± {:.3f}, empirical RMSE/exact sd {:.3f} ± {:.3f}",
                       ratio(i), ratio_se(i), rmse_ratio(i), rmse_ratio_se);
  }
};

// Runs `replications` seeds first_seed, first_seed + 1, … serially (each run may use threads;
// the result does not depend on their number).
inline McseCalibration calibrate_mcse(
    const std::function<estimators::MomentEstimate(std::uint64_t)>& run_one_seed,
    const Vector& true_mean, const Matrix& exact_mean_cov, int replications,
    std::uint64_t first_seed) {
  const Eigen::Index d = true_mean.size();
  Vector sum_m2 = Vector::Zero(d), sum_m4 = Vector::Zero(d), sum_e2 = Vector::Zero(d);
  McseCalibration out;
  out.replications = replications;
  for (int g = 0; g < replications; ++g) {
    const estimators::MomentEstimate est = run_one_seed(first_seed + static_cast<std::uint64_t>(g));
    if (g == 0) out.batch_rounds_first = est.batch_rounds;
    const Vector m2 = est.mean_mcse.cwiseAbs2();
    sum_m2 += m2;
    sum_m4 += m2.cwiseAbs2();
    sum_e2 += (est.mean - true_mean).cwiseAbs2();
  }
  const double n = replications;
  const Vector exact_var = exact_mean_cov.diagonal();
  const Vector mean_m2 = sum_m2 / n;
  const Vector var_m2 = (sum_m4 / n - mean_m2.cwiseAbs2()) * (n / (n - 1.0));
  out.ratio = mean_m2.cwiseQuotient(exact_var).cwiseSqrt();
  out.ratio_se =
      out.ratio.cwiseProduct(var_m2.cwiseSqrt().cwiseQuotient(2.0 * std::sqrt(n) * mean_m2));
  out.rmse_ratio = (sum_e2 / n).cwiseQuotient(exact_var).cwiseSqrt();
  out.rmse_ratio_se = 1.0 / std::sqrt(2.0 * n);
  return out;
}

// One-sided normal quantile z_{1−α}.
inline double z_one_sided(double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha));
}

// Equivalence (two one-sided tests at level α each): R ± z_{1−α}·se(R) lies inside
// [1 − margin, 1 + margin], so |E R − 1| < margin with confidence 1 − α.
inline bool mcse_equivalent(double ratio, double se, double margin, double alpha) {
  const double z = z_one_sided(alpha);
  return ratio - z * se >= 1.0 - margin && ratio + z * se <= 1.0 + margin;
}

// The MCSE is too small, significantly: R + z_{1−α}·se(R) < 1 − margin.
inline bool mcse_too_small(double ratio, double se, double margin, double alpha) {
  return ratio + z_one_sided(alpha) * se < 1.0 - margin;
}

}  // namespace fedverify::verify
