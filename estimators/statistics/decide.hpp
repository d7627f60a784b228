// Decision rules: each turns a measurement, its Monte Carlo standard error and a prediction
// into a verdict at a declared false-alarm level α (the probability of failing a true claim).
//
//  (a) wald_mean_test / hotelling_mean_test: "stationary mean = prediction" with the full
//      batch-means covariance of the mean estimate.
//  (b) bonferroni_z_test: the same claim coordinate by coordinate, α split over d tests.
//  (c) slope_exceeds: "remainder order > s0" from a log–log slope with a one-sided t bound.
//  (d) matrix_agreement: |measured − predicted| ≤ z·MCSE + allowance entrywise, the allowance
//      being a declared deterministic remainder (THEORY §8), α split over the entries.
//  (e) z_agreement: the same for one scalar estimate with its standard error.
//  (f) ratio_z_test: "ratio of two independent means = prediction" (delta method).
//  (g) difference_exceeds: "E[b] > E[a]" for two independent estimates, one-sided z.
//  (h) doubling_order_reaches: the exponent p of β(2γ)/β(γ) = 2^{p−1} is not below p0.
//  (i) jackknife_exceeds: "estimate > s0" with a jackknife standard error, one-sided z.
//  (j) mean_at_most: "E[x] ≤ bound", one-sided z (rejects when the lower limit is above).
//  (k) slope_interval_contains: the fit's two-sided Student-t interval contains s0.
//  (l) equivalence_test: "E[θ] lies in [lower, upper]" CONFIRMED by two one-sided tests (TOST),
//      e.g. agreement with a prediction within a declared margin, or a bound with confidence.
//  (m) minimum_detectable_error: the smallest error a rule detects with power 1 − β (0.9).
//  (n) ordering_verdict: "every E[D_i] < 0" for m paired differences: holds / fails /
//      inconclusive from simultaneous (Bonferroni) two-sided intervals.
//
// Numerical strategy: every z rule forms its statistic from an estimate and its standard error
// (ReplicatedMean, moments.hpp) and compares it with a quantile at the declared α. When the
// standard error is estimated from G replications (ReplicatedMean::dof = G − 1) the reference is
// Student's t with that many degrees of freedom (for two estimates, Welch–Satterthwaite's; for
// the jackknife, G − 1), otherwise the normal: a studentised mean of 20 replications referred to
// the normal would reject four times too often at the levels the claims use. The verdict is the
// comparison of the rule's stated inequality, so a row's verdict is reproducible from its data.
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
// Student's t_{1−α/2, dof} (dof = 0: z_{1−α/2}), for an estimate whose standard error comes from
// dof + 1 i.i.d. values (decide_internal.hpp: with se estimated, the normal quantile understates
// the tail).
double t_two_sided(double alpha, double dof);

struct Decision {
  bool passed = false;      // the claim survives (for (c): the claim is confirmed)
  double statistic = 0;     // test statistic, on the scale of `threshold`
  double threshold = 0;     // critical value at level α
  double p_value = 0;       // for (a), (b), (d): P(statistic ≥ observed | claim true)
  double alpha = 0;         // declared false-alarm level
  std::string description;  // one line: rule, statistic, threshold, α (for reports)
  // Rules (e)–(k): the estimate the statistic is formed from, its standard error, and its
  // confidence interval at level α (one-sided rules: the other end is ±∞).
  double estimate = 0;
  double std_error = 0;
  double lower = 0;
  double upper = 0;
  // Degrees of freedom of the Student-t reference of (e)–(m) (0: normal), and the deterministic
  // allowance of (d), (e) (0 otherwise): with threshold and std_error they give the rule's
  // minimum detectable error, (m).
  double dof = 0;
  double allowance = 0;
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
// The same with MCSEs estimated from dof + 1 independent batch means: the threshold is Student's
// t_dof quantile at the same tail (dof = 0: z, as above). With 32 batch means (2 chains) the
// z threshold 3.34 at a tail of 4.2e-4 is t₃₁'s 3.70: z would give 2.6 times the false alarms.
Decision matrix_agreement(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                          const Matrix& allowance, double alpha, double dof);

// (e) Two-sided z test of "estimate = predicted within ± allowance" (the allowance a declared
// deterministic remainder): statistic (|estimate − predicted| − allowance)⁺ / se, rejects when it
// exceeds z_{1−α/2}. p_value = 2(1 − Φ(statistic)), 1 inside the allowance.
Decision z_agreement(const ReplicatedMean& estimate, double predicted, double allowance,
                     double alpha);

// (f) Two-sided z test of "E[num]/E[den] = predicted" for independent estimates with positive
// means: r = num/den, se(r) = r·√((se_n/num)² + (se_d/den)²) (delta method),
// z = (r − predicted)/se(r) (signed), rejects when |z| > z_{1−α/2}. estimate = r.
Decision ratio_z_test(const ReplicatedMean& num, const ReplicatedMean& den, double predicted,
                      double alpha);

// (g) One-sided z test confirming "E[high] > E[low]" for independent estimates:
// z = (high − low)/√(se_low² + se_high²); passes (claim confirmed) when z > z_{1−α}.
// p_value = 1 − Φ(z): the level at which "E[high] ≤ E[low]" would be rejected.
Decision difference_exceeds(const ReplicatedMean& low, const ReplicatedMean& high, double alpha);

// (h) Order of a quantity measured at γ and 2γ: if β(γ) ∝ γ^{p−1} (β a bias scaled by 1/γ) then
// β(2γ)/β(γ) = 2^{p−1}, so p̂ = 1 + log₂(high/low), se(p̂) = √((se_l/low)² + (se_h/high)²)/ln 2
// (delta method, independent estimates), two-sided interval p̂ ± z_{1−α/2}·se. Passes unless the
// whole interval lies below p0. When low ≤ 0 or high ≤ 0 no finite p̂ exists: estimate NaN and
// the rule passes (it has nothing to reject; pair it with (g) to require growth).
Decision doubling_order_reaches(const ReplicatedMean& low, const ReplicatedMean& high, double p0,
                                double alpha);

// (i) One-sided confirmation of "θ > s0" from an estimate θ̂ and its G leave-one-out values
// θ̂_(g) (delete-one jackknife over independent replications):
//   se_J = √((G − 1)/G · Σ_g (θ̂_(g) − θ̄_(·))²),  lower = θ̂ − z_{1−α}·se_J;
// passes when lower > s0. statistic = (θ̂ − s0)/se_J, threshold z_{1−α}.
Decision jackknife_exceeds(double estimate, const std::vector<double>& leave_one_out, double s0,
                           double alpha);

// (j) One-sided z test of "E[x] ≤ bound": rejects when the lower confidence limit
// mean − z_{1−α}·se exceeds the bound. statistic = (mean − bound)/se, threshold z_{1−α}.
Decision mean_at_most(const ReplicatedMean& estimate, double bound, double alpha);

// (k) Two-sided Student-t test of "slope = s0" at the fit's own level fit.alpha: passes when
// s0 ∈ [fit.lower, fit.upper]. statistic = (slope − s0)/se(b), threshold t_{1−α/2, n−2}.
Decision slope_interval_contains(const SlopeEstimate& fit, double s0);

// (l) Equivalence by two one-sided tests (TOST; Schuirmann 1987) of "E[θ] ∈ [lower, upper]" from
// an estimate θ̂ with standard error se (Student-t with estimate.dof degrees of freedom when the
// SE is estimated, normal when dof = 0):
//   t_L = (θ̂ − lower)/se,  t_U = (upper − θ̂)/se;  CONFIRMED (passed) when min(t_L, t_U) >
//   q_{1−α,ν},
// i.e. when the (1 − 2α) interval θ̂ ± q_{1−α,ν}·se lies inside [lower, upper]. Non-equivalence
// is the union of "E[θ] ≤ lower" and "E[θ] ≥ upper", each rejected at level α, so a false
// confirmation has probability ≤ α (intersection–union; no multiplicity correction). An
// infinite end drops its test: [−∞, B] confirms the bound E[θ] ≤ B (the non-inferiority half).
// Agreement with a prediction p within a relative margin δ of a scale s is [p − δ|s|, p + δ|s|].
// statistic = min(t_L, t_U), threshold = q_{1−α,ν}, p_value = the larger one-sided p-value (the
// level at which equivalence would just be confirmed), lower/upper = the (1 − 2α) interval.
// passed is false when se = 0 and θ̂ is on an end (no strict inequality), or when lower > upper.
Decision equivalence_test(const ReplicatedMean& estimate, double lower, double upper, double alpha);
// The same on every coordinate of a vector estimate (standard errors `se`, common `dof`):
// confirmed when every coordinate is (intersection–union: each at level α, no correction).
// statistic = the smallest coordinate statistic; its coordinate gives estimate and interval.
Decision equivalence_test(const Vector& estimate, const Vector& se, double dof, const Vector& lower,
                          const Vector& upper, double alpha);

// (m) Minimum detectable error at power 1 − β of a rule that rejects when the excess of |θ̂ − θ₀|
// over an allowance A exceeds c·se (c the rule's critical value: q_{1−α/2,ν} two-sided,
// q_{1−α,ν} one-sided; ν = 0 is the normal):
//   MDE = A + (c + q_{1−β,ν})·se.
// A true error of MDE is then detected with probability 1 − β: exactly for the normal reference
// (up to the opposite tail, Φ(−2c − q_{1−β}) < 1e-4 at α ≤ 0.1); for Student's t it is the usual
// approximation of the noncentral t (its error at ν = 19 is < 0.01, decide_test).
double minimum_detectable_error(double critical, double dof, double se, double allowance = 0,
                                double power = 0.9);
// The same from a scalar rule's decision ((e)–(k)): its threshold, dof, std_error, allowance.
double minimum_detectable_error(const Decision& test, double power = 0.9);
// Hotelling's T² of (a') has no closed form for d > 1: the power at a true error Δ depends on
// λ = Δᵀ V⁻¹ Δ only, P(F'(d, ν − d + 1; λ) > F_{1−α}) with F' the noncentral F. Its MDE in the
// least-resolved direction (V's top eigenvector) is √(λ*·λ_max(V)), λ* the noncentrality of
// power 1 − β (solved to 1e-10 relative). With d = 1 it is the exact two-sided t test's MDE.
double hotelling_minimum_detectable_error(const Matrix& mean_cov, std::int64_t batches,
                                          double alpha, double power = 0.9);

// (n) Three-way verdict on an ordering claim "E[D_i] < 0 for every i" (e.g. D_i the paired
// difference of the test losses of two optimisers over seeds), from simultaneous two-sided
// intervals D̄_i ± q_{1−α/(2m),ν_i}·se_i (Bonferroni over the m differences, Student-t with each
// estimate's dof): HOLDS when every interval lies below 0, FAILS when some interval lies above 0
// (that difference has the other sign), INCONCLUSIVE otherwise. With probability ≥ 1 − α every
// interval covers its E[D_i], so a true ordering is declared failed, and a false one (some
// E[D_i] ≥ 0) declared holding, each with probability ≤ α. `intervals` holds one Decision per
// difference (estimate, std_error, lower, upper, threshold, dof; passed = upper < 0). A difference
// with se = 0 has a point interval (a tie at 0 is inconclusive). Throws InputError for m = 0.
enum class Ordering { holds, fails, inconclusive };
const char* to_string(Ordering verdict);
struct OrderingDecision {
  Ordering verdict = Ordering::inconclusive;
  std::vector<Decision> intervals;
  double alpha = 0;
};
OrderingDecision ordering_verdict(const std::vector<ReplicatedMean>& differences, double alpha);

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
