// Calibration and power of the stationary-mean test on a true null with EXACT moments.
//
// Statement: for FedAvg on a quadratic problem with additive Gaussian noise, the stationary
// mean is known exactly (THEORY F5). Running the simulator with many seeds, the mean test of
// "mean = exact mean" at level α must reject at a rate consistent with α, and the reported
// MCSE must match the actual spread of the estimate across seeds (within 15 %).
// Setting: examples/quadratic-small.json (d = 2, N = 3), γL = 0.1, H = 2, K = 32 chains,
// 800 recorded rounds per seed, 200 seeds.
// Measurement: estimators::calibrate_mean_test (rejection rate with a Clopper–Pearson interval,
// MCSE ratio per coordinate). With one batch per chain the MCSE covariance is estimated from
// K = 32 chain means, so the test is Hotelling's T² (exact F calibration with ν = 31); the plain
// Wald χ² would over-reject (≈ 7 % at α = 5 % for d = 2, ν = 31).
// Decision rule: α lies in the 99.9 % Clopper–Pearson interval of the rejection rate, and
// 0.85 ≤ RMS(MCSE)/RMSE ≤ 1.15 per coordinate; power: a prediction shifted by 3 MCSE is
// rejected in ≥ 60 % of seeds (the χ² test's power at a 3σ shift in d = 2 is ≈ 0.79; the
// Hotelling test's, with ν = 31, a little less; 0.60 leaves room for noise over 100 seeds).
// A third test checks the default MCSE (one batch per chain here, K = 32) against the exact sd
// of THEORY (F5a) and plants the former default batch length (DefaultMcseMatchesTheExactSd…).
// Reference: THEORY (F5), (F5a); estimators/statistics/decide.hpp.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/burn_in.hpp"
#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/testing/mcse_calibration.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify {
namespace {

constexpr const char* kProblem = R"({"kind": "quadratic", "clients": [
  {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
  {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]},
  {"hessian": [[1.5, 0.0], [0.0, 0.5]], "optimum": [0.2, 1.5], "noise_cov": [[0.2, -0.05], [-0.05, 0.2]]}]})";

std::vector<double> as_list(const Vector& v) { return {v.data(), v.data() + v.size()}; }

constexpr int kSeeds = 200;
constexpr double kAlpha = 0.05;  // level of the mean test being calibrated
constexpr double kIntervalConfidence = 0.999;
constexpr double kMcseTolerance = 0.15;  // the stated accuracy of the MCSE: within 15 %

struct NullSetting {
  std::unique_ptr<theory::Problem> problem =
      theory::parse_problem(nlohmann::json::parse(kProblem), "q-small");
  const theory::QuadraticProblem& q = dynamic_cast<const theory::QuadraticProblem&>(*problem);
  theory::RunSetting step{0.1 / q.smoothness(), 2};
  theory::ExactMoments exact = theory::fedavg_exact(q, step);
};

estimators::SimulationSpec spec_for(const NullSetting& s, int batch_rounds) {
  estimators::SimulationSpec spec;
  spec.algorithm = theory::Algorithm::fedavg;
  spec.step = s.step;
  spec.chains = 32;
  // Start at the exact mean: the initial W2 distance is ≈ √tr Σ, so a burn-in that shrinks it
  // to 1 % (burn_in.hpp) leaves a bias far below the MCSE (≈ 1/√(K·ESS per chain) of the spread).
  spec.initial_state = s.exact.mean;
  spec.burn_in = estimators::burn_in_rounds({s.exact.spectral_radius, 1.0, 1.0, 0.01});
  spec.rounds = spec.burn_in + 800;
  spec.batch_rounds = batch_rounds;
  spec.threads = 1;  // one thread per seed (calibrate_mean_test runs seeds in parallel)
  return spec;
}

// One seed of the null with the given batch length: the moments of its run.
std::function<estimators::MomentEstimate(std::uint64_t)> one_seed(const NullSetting& s,
                                                                  int batch_rounds) {
  return [&s, spec = spec_for(s, batch_rounds)](std::uint64_t seed) {
    auto sp = spec;
    sp.seed = seed;
    return estimators::simulate(*s.problem, sp).moments;
  };
}

// calibrate_mean_test over `seeds` seeds of the null with the given batch length and test.
estimators::NullCalibration calibrate(const NullSetting& s, int batch_rounds, int seeds,
                                      estimators::MeanTest test) {
  return estimators::calibrate_mean_test(one_seed(s, batch_rounds), s.exact.mean, seeds, kAlpha,
                                         test, kIntervalConfidence);
}

TEST(FedAvgCalibration, MeanTestRejectsAtItsLevelAndMcseMatchesSpread) {
  const NullSetting s;
  // Batches of 800 rounds = one per chain: the across-chain estimator, valid whatever the
  // autocorrelation time (1/(1 − ρ) ≈ 30 rounds here).
  const auto cal = calibrate(s, 800, kSeeds, estimators::MeanTest::hotelling);
  fmt::print(
      "{}\n  rejections {}/{} (rate {:.3f}, {:.1f} % interval [{:.3f}, {:.3f}]), MCSE/RMSE = {}\n",
      cal.description, cal.rejections, cal.seeds, cal.rate, 100 * cal.confidence, cal.rate_lower,
      cal.rate_upper, as_list(cal.mcse_ratio));
  EXPECT_TRUE(cal.rate_consistent) << "rejection rate " << cal.rate << " vs α = " << kAlpha;
  for (Eigen::Index i = 0; i < cal.mcse_ratio.size(); ++i) {
    EXPECT_NEAR(cal.mcse_ratio(i), 1.0, kMcseTolerance) << "coordinate " << i;
  }
}

// Statement: the default MCSE (--batch-rounds auto) matches the exact sd of the mean (THEORY
// F5a: n·Var(x̄_n) = Σ_∞ − (E + Eᵀ)/n over the 800 recorded rounds, divided by K·n) within 10 %;
// the former default, batches of round(√800) = 28 rounds, comparable to the autocorrelation
// time, understates it (planted perturbation). 100 seeds (auto: one batch per chain, 32 batch
// means, se(R) ≈ √(2/31)/(2√100) = 0.013) and 40 (old).
// Decision: equivalence of R = √E[MCSE²]/sd with 1 within 0.10 (two one-sided tests,
// estimators/statistics/testing/mcse_calibration.hpp) for the default; R + z·se < 0.9 for the old
// length; α = 0.01 Bonferroni-split over the 2 × 2 coordinate checks. (The whole-grid version at ρ
// ∈ {0.5, 0.9, 0.99} is verify/mcse_calibration_slowtest.cpp.)
TEST(FedAvgCalibration, DefaultMcseMatchesTheExactSdOldDefaultDoesNot) {
  const NullSetting s;
  const double alpha = 0.01 / 4;
  const int recorded = 800;
  const Matrix exact_mean_cov = theory::time_average_covariance(
                                    theory::fedavg_round_map(s.q, s.step), s.exact.cov, recorded) /
                                (32.0 * recorded);
  const auto calibration = [&](int batch_rounds, int seeds) {
    return verify::calibrate_mcse(one_seed(s, batch_rounds), s.exact.mean, exact_mean_cov, seeds,
                                  1);
  };
  const verify::McseCalibration automatic = calibration(estimators::kAutoBatchRounds, kSeeds / 2);
  // 40 seeds suffice: with 29 batches per chain the old MCSE varies little (se(R) ≈ 0.003).
  const verify::McseCalibration old = calibration(28, 40);
  for (int i = 0; i < 2; ++i) {
    fmt::print("coordinate {}: auto (b = {}) {}; b = 28: {}\n", i, automatic.batch_rounds_first,
               automatic.describe(i), old.describe(i));
    EXPECT_TRUE(verify::mcse_equivalent(automatic.ratio(i), automatic.ratio_se(i), 0.10, alpha))
        << automatic.describe(i);
    EXPECT_TRUE(verify::mcse_too_small(old.ratio(i), old.ratio_se(i), 0.10, alpha))
        << old.describe(i);
  }
}

TEST(FedAvgCalibration, MeanTestHasPowerAgainstAThreeMcseShift) {
  const NullSetting s;
  const auto spec = spec_for(s, 800);
  int rejected = 0;
  const int seeds = kSeeds / 2;
  for (int i = 0; i < seeds; ++i) {
    auto sp = spec;
    sp.seed = 10'000 + static_cast<std::uint64_t>(i);
    const auto m = estimators::simulate(*s.problem, sp).moments;
    Vector shifted = s.exact.mean;
    shifted(0) += 3.0 * m.mean_mcse(0);
    rejected += estimators::hotelling_mean_test(m, shifted, kAlpha).passed ? 0 : 1;
  }
  const double power = static_cast<double>(rejected) / seeds;
  fmt::print("power against a 3-MCSE shift: {}/{} = {:.2f}\n", rejected, seeds, power);
  EXPECT_GE(power, 0.60);
}

}  // namespace
}  // namespace fedverify
