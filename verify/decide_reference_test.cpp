// estimators/statistics/decide: rules whose standard error is ESTIMATED from G replications are
// calibrated at their declared α, because their statistic is referred to Student's t (G − 1
// degrees of freedom; Welch–Satterthwaite for two estimates) rather than to the normal.
//
// Setting: G = 5 i.i.d. N(θ, 1) replications per estimate, α = 0.05, 20 000 trials per check.
// Prediction: the rejection rate under the null is α. The normal reference would give
// P(|T₄| > 1.96) = 0.121 (two-sided) and P(T₄ > 1.645) = 0.088 (one-sided): far outside the
// tolerance below, so these tests fail if a rule ignores ReplicatedMean::dof.
// Tolerance: 4.5 binomial standard errors of the rate, √(α(1 − α)/n) = 1.5e-3 → ±6.9e-3
// (a false alarm of this test itself has probability ≈ 7e-6 per check).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
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

}  // namespace
}  // namespace fedverify::estimators
