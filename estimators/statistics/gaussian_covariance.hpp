// Entrywise agreement of the sample covariance of K independent Gaussian vectors with a known
// covariance Σ, calibrated at every K (issue 28 item 4): the one-round covariance check of
// `fedverify conformance`, whose x₁ is exactly Gaussian (a linear round of Gaussian noise).
//
// Hypothesis: the K vectors are i.i.d. N(m, Σ) (m unknown: S uses the sample mean).
// Statistic:  rule (d)'s (decide.hpp, matrix_agreement), max over i ≤ j of |S_ij − Σ_ij| / MCSE_ij
//             with MCSE_ij = √((Σ_ij² + Σ_ii Σ_jj)/K), the standard deviation of S_ij.
// Null:       (K − 1) S ~ Wishart_d(K − 1, Σ) exactly. Rule (d)'s normal threshold is optimistic
//             at small K (S_ij is skewed): measured false alarms at a nominal 0.0025, d = 2,
//             2·10⁵ draws each: K = 16: 0.013, 32: 0.0079, 64: 0.0053, 128: 0.0041, 256: 0.0032,
//             1024: 0.0029.
// Threshold:  the (1 − α) quantile of the statistic under the null, by Monte Carlo: M Wishart draws
//             by the Bartlett decomposition (W = R A Aᵀ Rᵀ, R Rᵀ = Σ, A lower triangular with
//             A_ii² ~ χ²_{K−1−i}, i = 0 … d − 1, A_ij ~ N(0, 1) below the diagonal: O(d³) per draw
//             whatever K), M = kCalibrationExceedances/α clamped to [kMinReplicates,
//             kMaxReplicates], from Stream(seed, Purpose::calibration): the same seed gives the
//             same threshold. p_value = (1 + #{draws ≥ statistic})/(M + 1).
// α:          as given (the caller's share of a run's level).
#pragma once

#include <cstdint>

#include "estimators/statistics/decide.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

inline constexpr double kCalibrationExceedances = 100;  // expected null draws beyond the quantile
inline constexpr int kMinCalibrationReplicates = 10000;
inline constexpr int kMaxCalibrationReplicates = 400000;

// √((Σ_ij² + Σ_ii Σ_jj)/K): the standard deviation of the entries of the sample covariance of K
// Gaussian vectors with covariance Σ (to first order in 1/K).
Matrix gaussian_sample_cov_mcse(const Matrix& cov, std::int64_t samples);

// The rule above. `sample_cov`: the sample covariance of `samples` ≥ 2 vectors; `cov`: Σ
// (symmetric positive semi-definite). Throws InputError naming the field for bad shapes or α.
Decision gaussian_covariance_agreement(const Matrix& sample_cov, const Matrix& cov,
                                       std::int64_t samples, double alpha, std::uint64_t seed);

}  // namespace fedverify::estimators
