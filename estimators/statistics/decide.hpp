// Decision rules: each turns a measurement, its Monte Carlo standard error and a prediction
// into a verdict at a declared false-alarm level α (the probability of failing a true claim).
//
//  (a) wald_mean_test / hotelling_mean_test: "stationary mean = prediction" with the full
//      batch-means covariance of the mean estimate.
//  (b) bonferroni_z_test: the same claim coordinate by coordinate, α split over d tests.
//  (c) slope_exceeds: "remainder order > s0" from a log–log slope with a one-sided t bound.
//  (d) matrix_agreement: |measured − predicted| ≤ z·MCSE + allowance entrywise, the allowance
//      being a declared deterministic remainder (THEORY §8), α split over the entries.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

// Standard normal critical values: z_{1−α} (one-sided) and z_{1−α/2} (two-sided).
double z_one_sided(double alpha);
double z_two_sided(double alpha);

struct Decision {
  bool passed = false;      // the claim survives (for (c): the claim is confirmed)
  double statistic = 0;     // test statistic, on the scale of `threshold`
  double threshold = 0;     // critical value at level α
  double p_value = 0;       // for (a), (b), (d): P(statistic ≥ observed | claim true)
  double alpha = 0;         // declared false-alarm level
  std::string description;  // one line: rule, statistic, threshold, α (for reports)
};

// (a) Wald test: T = (m − p)ᵀ V⁻¹ (m − p) ~ χ²_d under "mean = p" when V is known (in practice:
// estimated from many batch means). Rejects when T > χ²_{d, 1−α}. V must be positive definite.
Decision wald_mean_test(const Vector& mean, const Matrix& mean_cov, const Vector& prediction,
                        double alpha);
Decision wald_mean_test(const MomentEstimate& estimate, const Vector& prediction, double alpha);

// (a') Hotelling T²: V estimated from `batches` batch means (ν = batches − 1 degrees of freedom).
// Under the null, F = (ν − d + 1)/(ν d) · T² ~ F(d, ν − d + 1); rejects when F > F_{1−α}.
// Requires ν ≥ d. With many batches it coincides with the Wald test. Exact (for independent
// Gaussian batch means) when the rounds are a multiple of the batch length, so that the mean is
// the mean of the batch means; otherwise the few left-over rounds make it approximate.
Decision hotelling_mean_test(const Vector& mean, const Matrix& mean_cov, std::int64_t batches,
                             const Vector& prediction, double alpha);
Decision hotelling_mean_test(const MomentEstimate& estimate, const Vector& prediction,
                             double alpha);

// (b) z_i = (m_i − p_i)/MCSE_i; rejects when max |z_i| > z_{1−α/(2d)} (Bonferroni: family-wise
// level ≤ α whatever the correlation). p_value is the Bonferroni-adjusted min(1, d·p_min).
Decision bonferroni_z_test(const Vector& mean, const Vector& mcse, const Vector& prediction,
                           double alpha);

// (c) One-sided: passes when the slope exceeds s0 with confidence 1 − α, i.e.
// t = (b − s0)/se(b) > t_{1−α, n−2}. p_value = P(T_{n−2} ≥ t), the level at which "slope ≤ s0"
// would be rejected. Uses slope, std_error and n of the fit (not its α).
Decision slope_exceeds(const SlopeEstimate& fit, double s0, double alpha);
// Fits log(error) against log(step) (fit_log_log_slope) and applies slope_exceeds.
Decision remainder_order_exceeds(const std::vector<double>& steps,
                                 const std::vector<double>& errors, double s0, double alpha);

// (d) Entrywise agreement of a symmetric matrix (e.g. a covariance) on its d(d+1)/2 distinct
// entries: passes when |M_ij − P_ij| ≤ z_{1−α/(2m)}·MCSE_ij + allowance_ij for all i ≤ j,
// m = d(d+1)/2 (Bonferroni). Statistic: max_ij (|M − P| − allowance)⁺/MCSE, threshold z.
// `allowance` may be empty (zero) — then it is a pure statistical test.
Decision matrix_agreement(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                          const Matrix& allowance, double alpha);

// ---------------------------------------------------------------------------------------------
// Calibration of a mean test under a true null: run `seeds` independent replications (seed =
// first_seed, first_seed + 1, …) of an experiment whose stationary mean is known exactly, apply
// the test at level α to each, and check (i) that the rejection rate is consistent with α (α
// inside the two-sided Clopper–Pearson interval of the rate at `confidence`), and (ii) that the
// reported MCSE matches the actual spread of the estimate across seeds (ratio of the RMS MCSE to
// the RMS error about the true mean, per coordinate).
// Seeds run in parallel (OpenMP); results are collected by seed index, so the outcome does not
// depend on the number of threads. `run_one_seed` must be safe to call concurrently.
enum class MeanTest { wald, hotelling, bonferroni };

struct NullCalibration {
  int seeds = 0;
  int rejections = 0;
  double alpha = 0;
  double rate = 0;        // rejections / seeds
  double rate_lower = 0;  // Clopper–Pearson interval for the rejection probability
  double rate_upper = 0;
  double confidence = 0;         // of that interval
  bool rate_consistent = false;  // alpha ∈ [rate_lower, rate_upper]
  Vector rmse;                   // √(mean over seeds of (m − true mean)²), per coordinate
  Vector rms_mcse;               // √(mean over seeds of MCSE²), per coordinate
  Vector mcse_ratio;             // rms_mcse ./ rmse (1 when the MCSE is calibrated)
  std::string description;
};

NullCalibration calibrate_mean_test(
    const std::function<MomentEstimate(std::uint64_t seed)>& run_one_seed, const Vector& true_mean,
    int seeds, double alpha, MeanTest test, double confidence = 0.999,
    std::uint64_t first_seed = 1);

}  // namespace fedverify::estimators
