// The decision rules of estimators/statistics/decide.hpp: the Wald test's power against a
// shifted prediction on Gaussian AR(1) chains (estimators/statistics/testing/ar1.hpp), Hotelling vs
// Wald, Bonferroni, the remainder-order and matrix rules, the calibration harness, and the z rules
// (e)–(k) calibrated on synthetic estimates whose law is known. No sampler of the project is
// used: data come from estimators::Stream directly.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "estimators/statistics/testing/ar1.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/statistical_checks.hpp"

namespace fedverify::estimators {
namespace {

namespace bm = boost::math;
using verify::Ar1;
using verify::ar1_g;
using verify::count_events;
using verify::expect_rate_near;
using verify::kTrials;
using verify::run_ar1;
using verify::three_dim_model;
using verify::z_two_sided;

// ---------------------------------------------------------------------------------------------
// Decision rules.

// Power of the Wald test. Setting: d = 2 independent coordinates (Σ = diag(1, 2)), ρ = 0.5,
// K = 32, T = 1024 (b = 32, N = 1024 batch means), prediction = m + 3·sd(x̄_1)·e₁, α = 0.05.
// Prediction: T ~ noncentral χ²₂(λ) with λ = 9·Var(x̄_1)/E[mean_cov_11] (the batch-means
// estimate is biased low by the finite batch, which raises λ slightly); power =
// P(χ²₂(λ) > χ²₂(0.95)). Measurement: rejection rate over 100 seeds. Decision: the
// theoretical power lies in the 99.9 % Clopper–Pearson interval of the rate, and the rate is
// ≥ 0.7 ("rejects with high probability").
// t_two_sided is Boost's Student-t quantile at 1 − α/2 (the normal one at dof 0), including the
// far tails a Bonferroni correction over 10⁵ tests reaches; α outside (0, 1) is refused.
TEST(Decide, StudentCriticalValues) {
  for (const double alpha : {0.05, 1e-3, 1e-7}) {
    const double z = bm::quantile(bm::complement(bm::normal(), alpha / 2));
    EXPECT_NEAR(t_two_sided(alpha, 0), z, 1e-9 * z);
    for (const double dof : {4.0, 63.0, 1023.0}) {
      const double q = bm::quantile(bm::complement(bm::students_t(dof), alpha / 2));
      EXPECT_NEAR(t_two_sided(alpha, dof), q, 1e-9 * q) << alpha << " " << dof;
      EXPECT_GT(q, z);
    }
  }
  EXPECT_THROW(t_two_sided(0.0, 3), InputError);
}

TEST(Decide, WaldTestDetectsAThreeMcseShift) {
  Ar1 model;
  model.mean = Vector{{0.0, 1.0}};
  model.cov = Vector{{1.0, 2.0}}.asDiagonal();
  model.rho = 0.5;
  const int chains = 32, rounds = 1024, seeds = 100;
  const double alpha = 0.05, n = static_cast<double>(chains) * rounds;
  const double var_mean = model.cov(0, 0) * ar1_g(model.rho, rounds) / n;
  const double batches = chains * 32.0;
  const double expected_mcse2 = model.cov(0, 0) *
                                (batches * ar1_g(model.rho, 32) - ar1_g(model.rho, 1024)) /
                                ((batches - 1) * n);
  const Vector prediction = model.mean + Vector{{3.0 * std::sqrt(var_mean), 0.0}};
  int rejections = 0;
  for (int s = 0; s < seeds; ++s) {
    const MomentEstimate est = run_ar1(model, chains, rounds, 5000 + s, 32);
    if (!wald_mean_test(est, prediction, alpha).passed) ++rejections;
  }
  const double lambda = 9.0 * var_mean / expected_mcse2;
  const double threshold = bm::quantile(bm::complement(bm::chi_squared(2.0), alpha));
  const double power = bm::cdf(bm::complement(bm::non_central_chi_squared(2.0, lambda), threshold));
  const double lo = bm::binomial_distribution<>::find_lower_bound_on_p(seeds, rejections, 0.0005);
  const double hi = bm::binomial_distribution<>::find_upper_bound_on_p(seeds, rejections, 0.0005);
  fmt::print(
      "Wald power at a 3-MCSE shift: {}/{} rejected (99.9 % CI [{:.3f}, {:.3f}]); "
      "theory {:.3f} (lambda {:.2f})\n",
      rejections, seeds, lo, hi, power, lambda);
  EXPECT_GE(power, lo);
  EXPECT_LE(power, hi);
  EXPECT_GE(static_cast<double>(rejections) / seeds, 0.7);
}

// Hotelling vs Wald: same statistic, F reference instead of χ². With many batch means the
// p-values agree (F(d, ν−d+1)·d → χ²_d as ν → ∞; at ν = 10⁶ the p-values differ by < 10⁻³);
// with few, Hotelling's threshold on T² is larger (heavier tail), i.e. more conservative.
TEST(Decide, HotellingReducesToWaldWithManyBatches) {
  const Vector mean{{0.1, -0.2, 0.05}}, prediction = Vector::Zero(3);
  const Matrix v = Matrix{{1.0, 0.2, 0.0}, {0.2, 1.0, 0.1}, {0.0, 0.1, 1.0}} * 0.01;
  const Decision wald = wald_mean_test(mean, v, prediction, 0.05);
  const Decision many = hotelling_mean_test(mean, v, 1000000, prediction, 0.05);
  const Decision few = hotelling_mean_test(mean, v, 8, prediction, 0.05);
  fmt::print("{}\n{}\n{}\n", wald.description, many.description, few.description);
  EXPECT_NEAR(many.p_value, wald.p_value, 1e-3);
  EXPECT_GT(few.p_value, wald.p_value);
  EXPECT_THROW(hotelling_mean_test(mean, v, 3, prediction, 0.05), InputError);
  EXPECT_THROW(wald_mean_test(mean, -v, prediction, 0.05), InputError);
}

// Bonferroni z-tests: threshold z_{1−α/(2d)}; a 5-MCSE error in one coordinate is caught, a
// 1-MCSE error everywhere is not (z = 1 < z_{1−0.05/6} = 2.39).
TEST(Decide, BonferroniZTest) {
  const Vector mcse{{0.1, 0.2, 0.3}}, truth = Vector::Zero(3);
  const Decision small = bonferroni_z_test(mcse, mcse, truth, 0.05);
  EXPECT_TRUE(small.passed);
  EXPECT_NEAR(small.threshold, z_two_sided(0.05, 3), 1e-12);
  const Decision large = bonferroni_z_test(Vector{{0.0, 1.0, 0.0}}, mcse, truth, 0.05);
  EXPECT_FALSE(large.passed);
  fmt::print("{}\n", large.description);
}

// Remainder-order rule on synthetic log–log data y = 3 γ² e^{0.05 ε}, 8 step sizes: the slope
// exceeds 1.5 with confidence 0.95 (true slope 2, se ≈ 0.05/(√Sxx) ≈ 0.01) and does not
// exceed 2.5.
TEST(Decide, RemainderOrderRule) {
  std::vector<double> gammas, errors;
  Stream noise(17, Purpose::test);
  for (int k = 0; k < 8; ++k) {
    const double g = 0.1 * std::pow(0.5, k);
    gammas.push_back(g);
    errors.push_back(3.0 * g * g * std::exp(0.05 * noise.normal()));
  }
  const Decision above = remainder_order_exceeds(gammas, errors, 1.5, 0.05);
  const Decision below = remainder_order_exceeds(gammas, errors, 2.5, 0.05);
  fmt::print("{}\n", above.description);
  EXPECT_TRUE(above.passed);
  EXPECT_FALSE(below.passed);
}

// Matrix agreement on a measured AR(1) covariance (d = 3, ρ = 0.5, K = 64, T = 2000, α = 0.01):
// the true Σ passes with zero allowance; 1.05·Σ fails (the shift is ≈ 0.05·2 / 0.01 ≈ 10 MCSE on
// the largest entry); 1.05·Σ passes again with the declared allowance 0.05·|Σ|.
TEST(Decide, MatrixAgreementWithAllowance) {
  const Ar1 model = three_dim_model(0.5);
  const MomentEstimate est = run_ar1(model, 64, 2000, 77, 45);  // 44 batches per chain
  const Decision truth = matrix_agreement(est.cov, model.cov, est.cov_mcse, Matrix(), 0.01);
  const Decision shifted =
      matrix_agreement(est.cov, 1.05 * model.cov, est.cov_mcse, Matrix(), 0.01);
  const Decision allowed =
      matrix_agreement(est.cov, 1.05 * model.cov, est.cov_mcse, 0.05 * model.cov.cwiseAbs(), 0.01);
  fmt::print("{}\n{}\n{}\n", truth.description, shifted.description, allowed.description);
  EXPECT_TRUE(truth.passed);
  EXPECT_FALSE(shifted.passed);
  EXPECT_TRUE(allowed.passed);
}

// Same seed ⇒ bit-identical calibration whatever the number of threads: the seeds run in
// parallel but are collected and reduced in seed order.
TEST(Decide, CalibrationHarnessIsThreadCountIndependent) {
  Ar1 model;
  model.mean = Vector{{0.0, 1.0}};
  model.cov = Matrix{{1.0, 0.3}, {0.3, 2.0}};
  model.rho = 0.5;
  const auto one_seed = [&](std::uint64_t seed) { return run_ar1(model, 8, 400, seed); };
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const NullCalibration serial = calibrate_mean_test(one_seed, model.mean, 12, 0.2, MeanTest::wald);
  omp_set_num_threads(std::max(2, threads));
  const NullCalibration parallel =
      calibrate_mean_test(one_seed, model.mean, 12, 0.2, MeanTest::wald);
  omp_set_num_threads(threads);
  EXPECT_EQ(serial.rejections, parallel.rejections);
  EXPECT_EQ(serial.rmse, parallel.rmse);
  EXPECT_EQ(serial.rms_mcse, parallel.rms_mcse);
}

// ---------------------------------------------------------------------------------------------
// The z rules of decide.hpp (e)–(k).
//
// Each rule is calibrated on synthetic estimates whose law is known: under its null the
// rejection (or, for confirming rules, confirmation) rate over kTrials independent draws must be
// within 4 binomial standard errors of its nominal level, and against a planted shift the rule
// must react in ≥ 95 % of the draws. The draws are Stream(seed, Purpose::test), so the test is
// deterministic.

// (e) z_agreement. Null: estimate ~ N(p, se²) → rejection rate α = 0.05. With an allowance a and
// the truth at p + a only the upper tail can reject → rate α/2. Power: truth at p + a + 5·se.
TEST(Decide, ZAgreementCalibrationAndPower) {
  const double alpha = 0.05, se = 0.3, a = 0.5;
  const auto draw = [&](Stream& s, double truth) {
    return ReplicatedMean{truth + se * s.normal(), se};
  };
  expect_rate_near(
      count_events(201,
                   [&](Stream& s) { return !z_agreement(draw(s, 1.0), 1.0, 0.0, alpha).passed; }),
      kTrials, alpha, "z_agreement, null");
  expect_rate_near(
      count_events(202,
                   [&](Stream& s) { return !z_agreement(draw(s, 1.0 + a), 1.0, a, alpha).passed; }),
      kTrials, alpha / 2, "z_agreement, truth at the allowance");
  const int caught = count_events(203, [&](Stream& s) {
    return !z_agreement(draw(s, 1.0 + a + 5 * se), 1.0, a, alpha).passed;
  });
  EXPECT_GE(caught, 0.95 * kTrials);
  EXPECT_THROW(z_agreement({1.0, -1.0}, 1.0, 0.0, alpha), InputError);
}

// (f) ratio_z_test: num ~ N(2, 0.02²), den ~ N(1, 0.01²) independent (1 % relative errors, where
// the delta method is accurate). Null ratio 2 → rejection rate α = 0.05; a planted 10 % shift of
// the numerator (≈ 7 s.e. of the ratio) is caught.
TEST(Decide, RatioZTestCalibrationAndPower) {
  const double alpha = 0.05;
  const auto test = [&](Stream& s, double num_mean) {
    const ReplicatedMean num{num_mean + 0.02 * s.normal(), 0.02};
    const ReplicatedMean den{1.0 + 0.01 * s.normal(), 0.01};
    return ratio_z_test(num, den, 2.0, alpha);
  };
  expect_rate_near(count_events(211, [&](Stream& s) { return !test(s, 2.0).passed; }), kTrials,
                   alpha, "ratio_z_test, null");
  EXPECT_GE(count_events(212, [&](Stream& s) { return !test(s, 2.2).passed; }), 0.95 * kTrials);
  EXPECT_THROW(ratio_z_test({-1.0, 0.1}, {1.0, 0.1}, 1.0, alpha), InputError);
}

// (g) difference_exceeds: two independent N(μ, 1) estimates. Null (equal means): false
// confirmation rate α = 0.01. Power: high shifted by 5√2 s.e. of the difference.
TEST(Decide, DifferenceExceedsCalibrationAndPower) {
  const double alpha = 0.01;
  const auto test = [&](Stream& s, double shift) {
    const ReplicatedMean low{s.normal(), 1.0}, high{shift + s.normal(), 1.0};
    return difference_exceeds(low, high, alpha);
  };
  expect_rate_near(count_events(221, [&](Stream& s) { return test(s, 0.0).passed; }), kTrials,
                   alpha, "difference_exceeds, null");
  EXPECT_GE(count_events(222, [&](Stream& s) { return test(s, 5.0 * std::sqrt(2.0)).passed; }),
            0.95 * kTrials);
}

// (h) doubling_order_reaches: low ~ N(1, 0.01²), high ~ N(2^{p−1}, (0.01·2^{p−1})²). With the
// true p equal to p0 = 1.5 the interval misses p0 from below with probability α/2 (α = 0.05).
// Power: true p = 1 (no growth) is far below 1.5 (s.e. of p̂ ≈ 0.02). Non-positive inputs: no p̂.
TEST(Decide, DoublingOrderCalibrationAndPower) {
  const double alpha = 0.05;
  const auto test = [&](Stream& s, double p) {
    const double ratio = std::exp2(p - 1.0);
    const ReplicatedMean low{1.0 + 0.01 * s.normal(), 0.01};
    const ReplicatedMean high{ratio * (1.0 + 0.01 * s.normal()), 0.01 * ratio};
    return doubling_order_reaches(low, high, 1.5, alpha);
  };
  expect_rate_near(count_events(231, [&](Stream& s) { return !test(s, 1.5).passed; }), kTrials,
                   alpha / 2, "doubling_order_reaches, p = p0");
  EXPECT_GE(count_events(232, [&](Stream& s) { return !test(s, 1.0).passed; }), 0.95 * kTrials);
  const Decision none = doubling_order_reaches({-0.1, 0.1}, {1.0, 0.1}, 1.5, alpha);
  EXPECT_TRUE(std::isnan(none.estimate));
  EXPECT_TRUE(none.passed);
}

// (i) jackknife_exceeds on the mean of G = 100 i.i.d. N(θ, 1) replications (the jackknife SE of
// a mean is its usual SE). Null θ = s0: false confirmation rate ≈ α = 0.05 (t_99 tail 0.0514).
// Power: θ = s0 + 5/√G.
TEST(Decide, JackknifeExceedsCalibrationAndPower) {
  const double alpha = 0.05;
  const int g = 100;
  const auto test = [&](Stream& s, double theta) {
    std::vector<double> x(g);
    double sum = 0;
    for (double& v : x) sum += v = theta + s.normal();
    std::vector<double> loo;
    for (double v : x) loo.push_back((sum - v) / (g - 1));
    return jackknife_exceeds(sum / g, loo, 0.5, alpha);
  };
  const double t_tail = bm::cdf(bm::complement(bm::students_t(g - 1.0), 1.6448536269514722));
  expect_rate_near(count_events(241, [&](Stream& s) { return test(s, 0.5).passed; }), kTrials,
                   t_tail, "jackknife_exceeds, null");
  EXPECT_GE(count_events(242, [&](Stream& s) { return test(s, 0.5 + 5.0 / std::sqrt(g)).passed; }),
            0.95 * kTrials);
  const Decision d = jackknife_exceeds(1.0, {0.9, 1.1}, 0.5, alpha);
  EXPECT_NEAR(d.std_error, std::sqrt(0.5 * 0.02), 1e-15);
  EXPECT_NEAR(d.lower, 1.0 - d.threshold * d.std_error, 1e-15);
}

// (j) mean_at_most: estimate ~ N(bound, se²) → rejection rate α = 0.01 (the null's boundary);
// at bound − 2 se the rate is far below α; power: truth at bound + 5·se.
TEST(Decide, MeanAtMostCalibrationAndPower) {
  const double alpha = 0.01, se = 0.2, bound = 1.0;
  const auto test = [&](Stream& s, double truth) {
    return mean_at_most({truth + se * s.normal(), se}, bound, alpha);
  };
  expect_rate_near(count_events(251, [&](Stream& s) { return !test(s, bound).passed; }), kTrials,
                   alpha, "mean_at_most, null boundary");
  EXPECT_LT(count_events(252, [&](Stream& s) { return !test(s, bound - 2 * se).passed; }),
            alpha * kTrials);
  EXPECT_GE(count_events(253, [&](Stream& s) { return !test(s, bound + 5 * se).passed; }),
            0.95 * kTrials);
}

// (k) slope_interval_contains: y = 1 + 2x + N(0, 0.1²) on x = 0..9, fit at α = 0.05. The
// Student-t interval is exact, so "slope = 2" is rejected at rate 0.05; "slope = 2.1" (≈ 9 s.e.
// away) almost always.
TEST(Decide, SlopeIntervalCalibrationAndPower) {
  const auto fit_once = [](Stream& s) {
    std::vector<double> x, y;
    for (int i = 0; i < 10; ++i) {
      x.push_back(i);
      y.push_back(1.0 + 2.0 * i + 0.1 * s.normal());
    }
    return fit_slope(x, y, 0.05);
  };
  expect_rate_near(
      count_events(261,
                   [&](Stream& s) { return !slope_interval_contains(fit_once(s), 2.0).passed; }),
      kTrials, 0.05, "slope_interval_contains, null");
  EXPECT_GE(count_events(
                262, [&](Stream& s) { return !slope_interval_contains(fit_once(s), 2.1).passed; }),
            0.95 * kTrials);
}

// (n) ordering_verdict: m = 3 differences, each estimated from G = 6 normal replications (Student
// t, 5 dof). Null at the boundary of the ordering (every E[D_i] = 0): "fails" when some interval
// lies above 0, rate 1 − (1 − α/(2m))^m for independent differences. One E[D_i] = 0 and the others
// far below 0: "holds" needs that interval below 0, rate α/(2m). All far below 0: holds in ≥ 95 %.
TEST(Decide, OrderingVerdictCalibrationAndPower) {
  constexpr double alpha = 0.1;
  constexpr int m = 3, g = 6;
  const auto draw = [&](Stream& s, const std::vector<double>& truth) {
    std::vector<ReplicatedMean> d;
    for (const double t : truth) {
      std::vector<double> reps(g);
      for (double& r : reps) r = t + s.normal();
      d.push_back(replicated_mean(reps));
    }
    return ordering_verdict(d, alpha);
  };
  expect_rate_near(count_events(301,
                                [&](Stream& s) {
                                  return draw(s, {0, 0, 0}).verdict == Ordering::fails;
                                }),
                   kTrials, 1.0 - std::pow(1.0 - alpha / (2 * m), m), "ordering_verdict, fails");
  expect_rate_near(count_events(302,
                                [&](Stream& s) {
                                  return draw(s, {0, -20, -20}).verdict == Ordering::holds;
                                }),
                   kTrials, alpha / (2 * m), "ordering_verdict, holds with one tie");
  const int caught = count_events(303, [&](Stream& s) {
    return draw(s, {-5, -5, -5}).verdict == Ordering::holds;
  });
  EXPECT_GE(caught, 0.95 * kTrials);
  const OrderingDecision d = ordering_verdict({{-1, 0.1, 5}, {0.5, 0.1, 5}}, 0.05);
  EXPECT_EQ(d.verdict, Ordering::fails);
  ASSERT_EQ(d.intervals.size(), 2u);
  EXPECT_NEAR(d.intervals[0].threshold, bm::quantile(bm::complement(bm::students_t(5), 0.05 / 4)),
              1e-12);
  EXPECT_EQ(ordering_verdict({{-1, 0.1, 5}, {-0.1, 0.1, 5}}, 0.05).verdict, Ordering::inconclusive);
  EXPECT_THROW(ordering_verdict({}, 0.05), InputError);
}

}  // namespace
}  // namespace fedverify::estimators

// ---------------------------------------------------------------------------------------------
// Rules whose standard error is ESTIMATED from G replications are
// calibrated at their declared α, because their statistic is referred to Student's t (G − 1
// degrees of freedom; Welch–Satterthwaite for two estimates) rather than to the normal.
//
// Setting: G = 5 i.i.d. N(θ, 1) replications per estimate, α = 0.05, 20 000 trials per check.
// Prediction: the rejection rate under the null is α. The normal reference would give
// P(|T₄| > 1.96) = 0.121 (two-sided) and P(T₄ > 1.645) = 0.088 (one-sided): far outside the
// tolerance below, so these tests fail if a rule ignores ReplicatedMean::dof.
// Tolerance: 4.5 binomial standard errors of the rate, √(α(1 − α)/n) = 1.5e-3 → ±6.9e-3
// (a false alarm of this test itself has probability ≈ 7e-6 per check).
namespace fedverify::estimators {
namespace estimated_se {
namespace {

constexpr int kTrials = 20000;
constexpr int kReplications = 5;
constexpr double kAlpha = 0.05;
constexpr double kBinomialSigmas = 4.5;

ReplicatedMean estimate(Stream& s, double truth) {
  std::vector<double> x(kReplications);
  for (double& v : x) v = truth + s.normal();
  return replicated_mean(x);
}

template <class Reject>
double rejection_rate(std::uint64_t seed, Reject reject) {
  int n = 0;
  for (int t = 0; t < kTrials; ++t) {
    Stream s(seed, Purpose::test, static_cast<std::uint64_t>(t));
    n += reject(s) ? 1 : 0;
  }
  return static_cast<double>(n) / kTrials;
}

double tolerance(double p) { return kBinomialSigmas * std::sqrt(p * (1 - p) / kTrials); }

TEST(DecideReference, ReplicatedMeanCarriesItsDegreesOfFreedom) {
  EXPECT_EQ(replicated_mean(std::vector<double>{1, 2, 3, 4, 5}).dof, 4.0);
}

TEST(DecideReference, ZAgreementWithEstimatedSeHoldsItsLevel) {
  const double rate = rejection_rate(
      301, [](Stream& s) { return !z_agreement(estimate(s, 1.0), 1.0, 0.0, kAlpha).passed; });
  EXPECT_NEAR(rate, kAlpha, tolerance(kAlpha));
}

TEST(DecideReference, MeanAtMostWithEstimatedSeHoldsItsLevel) {
  const double rate = rejection_rate(
      302, [](Stream& s) { return !mean_at_most(estimate(s, 0.0), 0.0, kAlpha).passed; });
  EXPECT_NEAR(rate, kAlpha, tolerance(kAlpha));
}

TEST(DecideReference, DifferenceExceedsWithEstimatedSesHoldsItsLevel) {
  // Equal means: a false confirmation of "high > low" at rate α.
  const double rate = rejection_rate(303, [](Stream& s) {
    const ReplicatedMean low = estimate(s, 2.0);
    const ReplicatedMean high = estimate(s, 2.0);
    return difference_exceeds(low, high, kAlpha).passed;
  });
  EXPECT_NEAR(rate, kAlpha, tolerance(kAlpha));
}

TEST(DecideReference, RatioTestWithEstimatedSesHoldsItsLevel) {
  // 1 % relative noise per replication (the delta method is accurate there): N(200, 2²) over
  // N(100, 1), null ratio 2.
  const double rate = rejection_rate(304, [](Stream& s) {
    std::vector<double> a(kReplications), b(kReplications);
    for (double& v : a) v = 200.0 + 2.0 * s.normal();
    for (double& v : b) v = 100.0 + 1.0 * s.normal();
    return !ratio_z_test(replicated_mean(a), replicated_mean(b), 2.0, kAlpha).passed;
  });
  // The delta-method standard error with Welch–Satterthwaite's 8 degrees of freedom is slightly
  // conservative here (measured 0.043 at seed 304): the rule must not exceed its level, and must
  // not be so conservative that it loses half of it. The normal reference would give ≈ 0.11.
  EXPECT_LE(rate, kAlpha + tolerance(kAlpha));
  EXPECT_GE(rate, kAlpha / 2);
}

TEST(DecideReference, KnownSeStaysNormal) {
  // dof = 0 (a known standard error): the threshold is the normal quantile.
  const Decision d = z_agreement(ReplicatedMean{0.0, 1.0}, 0.0, 0.0, kAlpha);
  EXPECT_NEAR(d.threshold, 1.959963984540054, 1e-12);  // Φ⁻¹(0.975), tables
  const Decision t = z_agreement(ReplicatedMean{0.0, 1.0, 4.0}, 0.0, 0.0, kAlpha);
  EXPECT_NEAR(t.threshold, 2.776445105197799, 1e-9);  // t₄ quantile 0.975, tables
}

// ---------------------------------------------------------------------------------------------
// (l) equivalence_test (TOST) and (m) the minimum detectable error, on G = 20 i.i.d. N(θ, 1)
// replications (se = 1/√20 estimated with ν = 19 degrees of freedom, as the claims' replicated
// runs), kTrials = 20 000 draws per check, tolerance 4.5 binomial standard errors (above).

constexpr int kEquivalenceReplications = 20;

ReplicatedMean estimate_of_20(Stream& s, double truth) {
  std::vector<double> x(kEquivalenceReplications);
  for (double& v : x) v = truth + s.normal();
  return replicated_mean(x);
}

// Calibration. Truth ON the equivalence boundary (θ = p + Δ, Δ = 1 ≈ 4.5 se): "equivalent" is a
// false confirmation, which the upper one-sided test makes with probability exactly α (t_L ≈ 9
// never binds). With a margin too narrow for the data (Δ = 0.5 se) the TOST is conservative:
// still at most α. Inside (θ = p) it confirms (power ≈ P(T₁₉ < 4.47 − 1.73) ≈ 0.99).
TEST(DecideEquivalence, TostHoldsItsLevelOnTheBoundary) {
  const double p = 1.0, margin = 1.0, se = 1.0 / std::sqrt(kEquivalenceReplications);
  const double at_boundary = rejection_rate(311, [&](Stream& s) {
    return equivalence_test(estimate_of_20(s, p + margin), p - margin, p + margin, kAlpha).passed;
  });
  fmt::print("TOST false confirmation on the boundary: {:.4f} (alpha {})\n", at_boundary, kAlpha);
  EXPECT_NEAR(at_boundary, kAlpha, tolerance(kAlpha));
  const double narrow = rejection_rate(312, [&](Stream& s) {
    return equivalence_test(estimate_of_20(s, p + 0.5 * se), p - 0.5 * se, p + 0.5 * se, kAlpha)
        .passed;
  });
  fmt::print("TOST false confirmation, margin 0.5 se: {:.4f}\n", narrow);
  EXPECT_LE(narrow, kAlpha + tolerance(kAlpha));
  const double inside = rejection_rate(313, [&](Stream& s) {
    return equivalence_test(estimate_of_20(s, p), p - margin, p + margin, kAlpha).passed;
  });
  EXPECT_GE(inside, 0.95);
  // One-sided (a bound): [−∞, B] with the truth at B confirms at rate α; the lower end never binds.
  const double bound = rejection_rate(314, [&](Stream& s) {
    return equivalence_test(estimate_of_20(s, 2.0), -std::numeric_limits<double>::infinity(), 2.0,
                            kAlpha)
        .passed;
  });
  EXPECT_NEAR(bound, kAlpha, tolerance(kAlpha));
}

// Vector TOST (intersection–union): d = 3 independent coordinates, one ON its boundary and two
// well inside: the false confirmation rate is that of the boundary coordinate, ≈ α, with no
// multiplicity correction; every coordinate on its boundary: ≤ α (≈ α³ here).
TEST(DecideEquivalence, VectorTostIsIntersectionUnion) {
  const Vector p{{0.0, 1.0, -1.0}};
  const Vector margin = Vector::Constant(3, 1.0);
  const auto draw = [&](Stream& s, const Vector& truth) {
    Matrix x(3, kEquivalenceReplications);
    for (int g = 0; g < kEquivalenceReplications; ++g)
      for (int i = 0; i < 3; ++i) x(i, g) = truth(i) + s.normal();
    const auto m = replicated_mean(x);
    return equivalence_test(m.mean, m.se(), kEquivalenceReplications - 1.0, p - margin, p + margin,
                            kAlpha);
  };
  const double one = rejection_rate(321, [&](Stream& s) {
    return draw(s, p + Vector{{0.0, 1.0, 0.0}}).passed;
  });
  EXPECT_NEAR(one, kAlpha, tolerance(kAlpha));
  const double all = rejection_rate(322, [&](Stream& s) { return draw(s, p - margin).passed; });
  EXPECT_LE(all, kAlpha + tolerance(kAlpha));
  const Decision d = equivalence_test(Vector{{0.0, 1.9}}, Vector{{0.1, 0.1}}, 0.0,
                                      Vector{{-1.0, 0.0}}, Vector{{1.0, 2.0}}, 0.05);
  EXPECT_FALSE(d.passed);  // 1.9 + 1.645·0.1 > 2
  EXPECT_DOUBLE_EQ(d.estimate, 1.9);
  EXPECT_THROW(equivalence_test(ReplicatedMean{0.0, 1.0}, 1.0, -1.0, 0.05), InputError);
}

// A zero standard error (an exact value): strictly inside confirms, on an end does not.
TEST(DecideEquivalence, ExactValues) {
  EXPECT_TRUE(equivalence_test(ReplicatedMean{0.5, 0.0}, 0.0, 1.0, 0.01).passed);
  EXPECT_FALSE(equivalence_test(ReplicatedMean{1.0, 0.0}, 0.0, 1.0, 0.01).passed);
  EXPECT_FALSE(equivalence_test(ReplicatedMean{1.5, 0.0}, 0.0, 1.0, 0.01).passed);
}

// (m) Power at the MDE. A true error equal to the MDE of the two-sided z_agreement rule at
// α = 0.01 is detected with probability 0.9:
//  - normal reference (known se = 1, with an allowance 0.5): exactly 0.9 up to the far tail;
//  - Student's t (se estimated from 20 replications, the truth shifted by the MDE of the TRUE
//    se): the closed form approximates the noncentral t, whose exact power at that shift
//    (boost's noncentral t) must be within 0.01 of 0.9, and the measured rate within 4.5
//    binomial standard errors of that exact power.
TEST(DecideEquivalence, PowerAtTheMinimumDetectableErrorIsNinetyPercent) {
  const double alpha = 0.01, power = 0.9;
  const double z_mde = minimum_detectable_error(z_one_sided(alpha / 2), 0.0, 1.0, 0.5, power);
  EXPECT_NEAR(z_mde, 0.5 + 2.5758293035489 + 1.2815515655446, 1e-9);  // tables
  const double z_rate = rejection_rate(331, [&](Stream& s) {
    return !z_agreement(ReplicatedMean{z_mde + s.normal(), 1.0}, 0.0, 0.5, alpha).passed;
  });
  fmt::print("power at the normal MDE {:.4f}: {:.4f}\n", z_mde, z_rate);
  EXPECT_NEAR(z_rate, power, tolerance(power));

  const double nu = kEquivalenceReplications - 1.0;
  const double true_se = 1.0 / std::sqrt(kEquivalenceReplications);
  const double c = bm::quantile(bm::complement(bm::students_t(nu), alpha / 2));
  const double t_mde = minimum_detectable_error(c, nu, true_se, 0.0, power);
  const bm::non_central_t shifted(nu, t_mde / true_se);
  const double exact = bm::cdf(bm::complement(shifted, c)) + bm::cdf(shifted, -c);
  const double t_rate = rejection_rate(332, [&](Stream& s) {
    return !z_agreement(estimate_of_20(s, t_mde), 0.0, 0.0, alpha).passed;
  });
  fmt::print("power at the t MDE {:.4f} (nu = 19): measured {:.4f}, exact noncentral t {:.4f}\n",
             t_mde, t_rate, exact);
  EXPECT_NEAR(exact, power, 0.01);
  EXPECT_NEAR(t_rate, exact, tolerance(power));
  // From a decision: the rule's own threshold, dof, se and allowance.
  const Decision rule = z_agreement(ReplicatedMean{0.0, 0.2, 9.0}, 0.0, 0.1, alpha);
  EXPECT_DOUBLE_EQ(minimum_detectable_error(rule),
                   minimum_detectable_error(rule.threshold, 9.0, 0.2, 0.1));
  // One-sided rule (mean_at_most): critical q_{1−α}; a truth MDE above the bound is caught 90 %.
  const Decision one_sided = mean_at_most(ReplicatedMean{0.0, 1.0}, 0.0, alpha);
  const double one_mde = minimum_detectable_error(one_sided);
  const double one_rate = rejection_rate(333, [&](Stream& s) {
    return !mean_at_most(ReplicatedMean{one_mde + s.normal(), 1.0}, 0.0, alpha).passed;
  });
  EXPECT_NEAR(one_rate, power, tolerance(power));
}

// Hotelling's MDE: d = 3 coordinates with V = diag(1, 4, 0.25)/G from G = 20 replications; a true
// error of the MDE along the least-resolved coordinate (the second) is rejected by the
// Hotelling test at α = 0.01 with probability 0.9 (the noncentral F is exact for Gaussian
// replications). With d = 1 the MDE is the exact two-sided t test's, which the closed form of
// (m) approximates to a few percent.
TEST(DecideEquivalence, HotellingMinimumDetectableError) {
  const double alpha = 0.01, power = 0.9;
  const int g = kEquivalenceReplications;
  const Vector sd{{1.0, 2.0, 0.5}};
  const Matrix v = sd.cwiseAbs2().asDiagonal() * (1.0 / g);
  const double mde = hotelling_minimum_detectable_error(v, g, alpha, power);
  const Vector truth{{0.0, mde, 0.0}};
  const double rate = rejection_rate(341, [&](Stream& s) {
    Matrix x(3, g);
    for (int r = 0; r < g; ++r)
      for (int i = 0; i < 3; ++i) x(i, r) = truth(i) + sd(i) * s.normal();
    const auto m = replicated_mean(x);
    return !hotelling_mean_test(m.mean, m.mean_cov, g, Vector::Zero(3), alpha).passed;
  });
  fmt::print("Hotelling MDE {:.4f} (least-resolved se {:.4f}): power {:.4f}\n", mde,
             std::sqrt(v(1, 1)), rate);
  EXPECT_NEAR(rate, power, tolerance(power));
  const Matrix one = Matrix::Constant(1, 1, 1.0 / g);
  const double exact_t = hotelling_minimum_detectable_error(one, g, alpha, power);
  const double closed =
      minimum_detectable_error(bm::quantile(bm::complement(bm::students_t(g - 1.0), alpha / 2)),
                               g - 1.0, std::sqrt(1.0 / g));
  EXPECT_NEAR(exact_t / closed, 1.0, 0.03);
  EXPECT_THROW(hotelling_minimum_detectable_error(v, 3, alpha, power), InputError);
  EXPECT_THROW(minimum_detectable_error(1.0, 0.0, 1.0, 0.0, 1.5), InputError);
}

}  // namespace
}  // namespace estimated_se
}  // namespace fedverify::estimators
