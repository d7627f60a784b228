// Stein's two-stage sample size (sample_size.hpp): the plan's arithmetic against the rule's own
// minimum detectable error (decide.hpp (m)), and the two properties that justify it, measured
// on Gaussian replications whose law is known: the level of the stage-2 test is α exactly, and a
// true error of δ/2 is detected with probability ≥ the planned power, whatever σ.
#include "estimators/statistics/sample_size.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/statistical_checks.hpp"

namespace fedverify::estimators {
namespace {

using verify::count_events;
using verify::expect_rate_near;
using verify::kTrials;

double mde_at(const SampleSizePlan& plan, std::int64_t n, double alpha, double power) {
  const double dof = static_cast<double>(plan.pilot - 1);
  const double critical =
      boost::math::quantile(boost::math::complement(boost::math::students_t(dof), alpha / 2));
  return minimum_detectable_error(critical, dof, plan.pilot_sd / std::sqrt(static_cast<double>(n)),
                                  0.0, power);
}

TEST(SteinSampleSize, NeededIsTheLeastCountWhoseDetectableErrorIsHalfTheMargin) {
  const double alpha = 0.01;
  const double power = 0.9;
  const double margin = 0.05;
  for (const double sd : {0.01, 0.1, 0.37, 2.0}) {
    for (const std::int64_t pilot : {4, 10, 40}) {
      const auto plan = stein_sample_size(sd, pilot, margin, alpha, power, 1'000'000'000);
      ASSERT_TRUE(plan.reaches());
      EXPECT_LE(mde_at(plan, plan.needed, alpha, power), margin / 2) << sd << " " << pilot;
      if (plan.needed > pilot) {
        EXPECT_GT(mde_at(plan, plan.needed - 1, alpha, power), margin / 2) << sd << " " << pilot;
      }
      EXPECT_EQ(plan.planned, plan.needed);
      EXPECT_DOUBLE_EQ(plan.planned_mde, mde_at(plan, plan.planned, alpha, power));
    }
  }
}

TEST(SteinSampleSize, ABudgetTooSmallSaysByHowMuch) {
  const auto plan = stein_sample_size(1.0, 10, 0.05, 0.01, 0.9, 400);
  EXPECT_FALSE(plan.reaches());
  EXPECT_EQ(plan.planned, 400);
  EXPECT_NEAR(plan.shortfall, static_cast<double>(plan.needed) / 400.0, 1e-12);
  EXPECT_GT(plan.planned_mde, 0.05 / 2);
  EXPECT_NE(plan.advice().find("needs ≈"), std::string::npos) << plan.advice();
  EXPECT_EQ(stein_sample_size(1.0, 10, 1.0, 0.01, 0.9, 100000).advice(), "");
}

TEST(SteinSampleSize, NoSpreadNeedsOnlyThePilot) {
  const auto plan = stein_sample_size(0.0, 8, 0.05, 0.01, 0.9, 100);
  EXPECT_EQ(plan.needed, 8);
  EXPECT_EQ(plan.planned_mde, 0.0);
}

TEST(SteinSampleSize, BadArgumentsAreInputErrorsNamingTheArgument) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { stein_sample_size(1.0, 1, 0.1, 0.01, 0.9, 10); }).find("pilot"),
            std::string::npos);
  EXPECT_NE(message([] { stein_sample_size(NAN, 5, 0.1, 0.01, 0.9, 10); }).find("pilot_sd"),
            std::string::npos);
  EXPECT_NE(message([] { stein_sample_size(1.0, 5, 0.0, 0.01, 0.9, 10); }).find("margin"),
            std::string::npos);
  EXPECT_NE(message([] { stein_sample_size(1.0, 5, 0.1, 1.5, 0.9, 10); }).find("alpha"),
            std::string::npos);
  EXPECT_NE(message([] { stein_sample_size(1.0, 5, 0.1, 0.01, 0.4, 10); }).find("power"),
            std::string::npos);
  EXPECT_NE(message([] { stein_sample_size(1.0, 5, 0.1, 0.01, 0.9, 4); }).find("budget"),
            std::string::npos);
  const SampleSizePlan plan = stein_sample_size(1.0, 5, 0.1, 0.01, 0.9, 100);
  EXPECT_NE(message([&] { stein_mean(plan, {1.0, 2.0}); }).find("replications"), std::string::npos);
}

// One two-stage experiment on N(θ, σ²) replications: a pilot of n₀, the plan, the remaining
// replications, then the two-sided z/t rule (e) of "E = 0" at α on stein_mean. Returns whether
// the rule rejects.
bool two_stage_rejects(Stream& s, double theta, double sigma, std::int64_t pilot, double margin,
                       double alpha, double power) {
  std::vector<double> x;
  for (std::int64_t i = 0; i < pilot; ++i) x.push_back(theta + sigma * s.normal());
  const auto plan = stein_sample_size(x, margin, alpha, power, 1'000'000);
  while (static_cast<std::int64_t>(x.size()) < plan.planned)
    x.push_back(theta + sigma * s.normal());
  return !z_agreement(stein_mean(plan, x), 0.0, 0.0, alpha).passed;
}

// Level: under "E = 0" the stage-2 statistic is exactly Student's t with n₀ − 1 dof whatever
// the data-dependent n, so the rejection rate is α (checked at α = 0.05, where kTrials = 10⁴
// trials resolve it to ±4·0.0022; a small pilot n₀ = 5 makes s₀ — and so n — vary a lot,
// which is where a re-estimated variance would drift from α).
TEST(SteinSampleSize, TheStageTwoTestKeepsItsLevelExactly) {
  const double alpha = 0.05;
  for (const double sigma : {0.3, 1.7}) {
    const int events = count_events(
        2611, [&](Stream& s) { return two_stage_rejects(s, 0.0, sigma, 5, 1.0, alpha, 0.9); });
    expect_rate_near(events, kTrials, alpha, "Stein two-stage, level");
  }
}

// Power: a true error of δ/2 is rejected with probability ≥ 0.9 (P(T_ν < q_{0.9,ν}) = 0.9 exactly
// once n meets the plan; the ceiling only adds power). One-sided check: the rate may not fall
// more than 4 binomial standard errors below 0.9.
TEST(SteinSampleSize, AnErrorOfHalfTheMarginIsDetectedWithThePlannedPower) {
  const double alpha = 0.05;
  const double power = 0.9;
  const double margin = 1.0;
  for (const double sigma : {0.3, 1.7}) {
    const int events = count_events(2612, [&](Stream& s) {
      return two_stage_rejects(s, margin / 2, sigma, 5, margin, alpha, power);
    });
    const double rate = static_cast<double>(events) / kTrials;
    const double mcse = std::sqrt(power * (1 - power) / kTrials);
    std::printf("power at δ/2, σ = %.1f: %.4f (planned %.2f, MCSE %.4f)\n", sigma, rate, power,
                mcse);
    EXPECT_GE(rate, power - 4 * mcse);
  }
}

// Stage 2 reports the pilot's spread and its n₀ − 1 degrees of freedom, not those of all n
// replications (which would make the level only approximately α).
TEST(SteinSampleSize, StageTwoUsesThePilotsSpreadAndDegreesOfFreedom) {
  const auto plan =
      stein_sample_size(std::vector<double>{0.0, 1.0, 2.0, 3.0}, 0.5, 0.05, 0.9, 1000);
  std::vector<double> x = {0.0, 1.0, 2.0, 3.0};
  while (static_cast<std::int64_t>(x.size()) < plan.planned) x.push_back(1.5);
  const ReplicatedMean m = stein_mean(plan, x);
  EXPECT_EQ(m.dof, 3.0);
  EXPECT_DOUBLE_EQ(m.se, plan.pilot_sd / std::sqrt(static_cast<double>(x.size())));
  EXPECT_DOUBLE_EQ(m.mean, 1.5);
}

// The budget multiple of a finished run is Stein's stage-2 count over the pilot's: with the run as
// the pilot (n₀ replications, spread s₀), stein_sample_size's `needed` / n₀ and
// stein_budget_multiple(MDE(n₀), δ) agree up to the rounding of `needed` to an integer (≤ 1/n₀),
// because MDE(n) = (q_{1−α/2,ν} + q_{power,ν})·s₀/√n with ν fixed at n₀ − 1.
TEST(SteinSampleSize, TheBudgetMultipleOfAFinishedRunIsTheStageTwoRatio) {
  const std::int64_t n0 = 40;
  const double sd = 0.3, margin = 0.05, alpha = 0.01, power = 0.9;
  const SampleSizePlan plan = stein_sample_size(sd, n0, margin, alpha, power, 1000000);
  const double nu = static_cast<double>(n0 - 1);
  const boost::math::students_t t(nu);
  const double mde = (boost::math::quantile(t, 1 - alpha / 2) + boost::math::quantile(t, power)) *
                     sd / std::sqrt(static_cast<double>(n0));
  const double multiple = stein_budget_multiple(mde, margin);
  EXPECT_GT(multiple, 1.0);
  EXPECT_NEAR(multiple, static_cast<double>(plan.needed) / n0, 1.0 / n0);
  EXPECT_EQ(budget_advice(multiple).rfind("needs ≈ ", 0), 0U);
  // A run that already reaches δ/2 needs nothing more; a run at exactly twice δ/2 needs 4×.
  EXPECT_EQ(stein_budget_multiple(margin / 4, margin), 0.0);
  EXPECT_DOUBLE_EQ(stein_budget_multiple(margin, margin), 4.0);
  EXPECT_EQ(budget_advice(0.0), "");
  EXPECT_EQ(budget_advice(15.05), "needs ≈ 16× this budget");  // rounded up, 2 digits from 10
  EXPECT_EQ(budget_advice(3.2), "needs ≈ 4× this budget");
  EXPECT_EQ(budget_advice(101.0), "needs ≈ 110× this budget");
  EXPECT_EQ(stein_budget_multiple(0.1, 0.0), 0.0);  // a one-sided rule has no margin
}

// A rule that tolerates a declared remainder (agreement within the margin, decide.hpp (e)) has
// MDE = A + (c + q)·se with A = δ: only the second part shrinks with the sample. Its budget
// multiple is the stage-2 ratio of that part, the same as a point-null rule's at the same se —
// not (MDE/(δ/2))², which exceeds 4 at any sample size since MDE > δ.
TEST(SteinSampleSize, TheAllowanceOfARuleDoesNotShrinkAndIsNotPlannedFor) {
  const std::int64_t n0 = 40;
  const double sd = 0.3, margin = 0.05, alpha = 0.01, power = 0.9;
  const SampleSizePlan plan = stein_sample_size(sd, n0, margin, alpha, power, 1000000);
  const double se = sd / std::sqrt(static_cast<double>(n0));
  const Decision rule = z_agreement({0.0, se, static_cast<double>(n0 - 1)}, 0.0, margin, alpha);
  const double mde = minimum_detectable_error(rule, power);
  const double multiple = stein_budget_multiple(mde, margin, margin);
  EXPECT_NEAR(multiple, static_cast<double>(plan.needed) / n0, 1.0 / n0);
  EXPECT_GT(stein_budget_multiple(mde, margin), multiple + 4.0);  // the allowance counted as noise
  // A row whose random part is already ≤ δ/2 needs nothing, though its MDE is above δ.
  EXPECT_EQ(stein_budget_multiple(margin + margin / 3, margin, margin), 0.0);
  EXPECT_THROW((void)stein_budget_multiple(0.1, margin, -1.0), InputError);
}

}  // namespace
}  // namespace fedverify::estimators
