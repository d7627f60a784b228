// Calibration of the mean tests under a true null (label: slow).
//
// The decision rules of estimators/statistics/decide.hpp declare a false-alarm level α; this suite
// checks that they deliver it, and that the batch-means MCSE is the actual spread of the estimate,
// by replaying an experiment with a known stationary mean over many seeds. The harness
// (calibrate_mean_test) takes any "run one seed" function, so the same check can be run on a
// FedAvg sampler on a quadratic problem, whose exact stationary mean is known (THEORY F5).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

// K independent Gaussian AR(1) chains in ℝ^d started from the stationary law:
//   x_{t+1} = m + ρ (x_t − m) + √(1 − ρ²) L ε_t,  L Lᵀ = Σ;  stationary N(m, Σ).
struct Ar1Experiment {
  Vector mean;
  Matrix cov;
  double rho;
  int chains;
  int rounds;
  int batch_rounds;  // 0: the default (estimators::default_batch_rounds)

  MomentEstimate operator()(std::uint64_t seed) const {
    const Eigen::Index d = mean.size();
    const Matrix chol = cov.llt().matrixL();
    const double innovation = std::sqrt(1 - rho * rho);
    std::vector<Stream> noise;
    Matrix state(d, chains);
    Vector z(d);
    for (int k = 0; k < chains; ++k) {
      noise.emplace_back(seed, Purpose::test, k);
      Stream init(seed, Purpose::initial_state, k);
      for (Eigen::Index i = 0; i < d; ++i) z(i) = init.normal();
      state.col(k) = mean + chol * z;
    }
    StationaryMomentsAccumulator acc(static_cast<int>(d), chains, rounds, batch_rounds);
    for (int t = 0; t < rounds; ++t) {
      acc.add(state);
      for (int k = 0; k < chains; ++k) {
        for (Eigen::Index i = 0; i < d; ++i) z(i) = noise[k].normal();
        state.col(k) = mean + rho * (state.col(k) - mean) + innovation * (chol * z);
      }
    }
    return acc.result();
  }
};

Ar1Experiment three_dim(int chains, int rounds, int batch_rounds) {
  return Ar1Experiment{Vector{{1.0, -2.0, 0.5}},
                       Matrix{{1.0, 0.5, 0.2}, {0.5, 2.0, -0.3}, {0.2, -0.3, 0.5}},
                       0.5,
                       chains,
                       rounds,
                       batch_rounds};
}

void report(const char* name, const NullCalibration& cal) {
  fmt::print("{}: {}\n", name, cal.description);
  ::testing::Test::RecordProperty(std::string(name) + "_rate", std::to_string(cal.rate));
}

// Statement: under a true null the Wald test of "mean = prediction" with the batch-means
// covariance rejects with probability α, and the MCSE is the standard deviation of the mean.
// Setting: AR(1), d = 3, ρ = 0.5, K = 32, T = 2500 (b = 50, N = 1600 batch means), α = 0.05,
// 400 seeds. Prediction: rate ≈ α — slightly above, since the finite batch biases the variance
// low by 2ρ/(b(1−ρ)²)/((1+ρ)/(1−ρ)) ≈ 2.7 % (rate ≈ P(χ²₃ > 7.81/1.027) ≈ 0.055).
// Decision: α inside the 99.9 % Clopper–Pearson interval of the rate; RMS MCSE / RMSE within
// 15 % of 1 for every coordinate (the RMSE over 400 seeds has relative sd ≈ 1/√800 = 3.5 %).
// Reference: estimators/statistics/decide.hpp; BDA3 / Flegal & Jones (batch means).
TEST(Calibration, WaldMeanTestOnAr1Chains) {
  const NullCalibration cal = calibrate_mean_test(three_dim(32, 2500, 50), Vector{{1.0, -2.0, 0.5}},
                                                  400, 0.05, MeanTest::wald);
  report("wald", cal);
  EXPECT_TRUE(cal.rate_consistent);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(cal.mcse_ratio(i), 1.0, 0.15) << "coordinate " << i;
}

// Statement: with few batch means (N = 20) the covariance of the mean is itself uncertain;
// Hotelling's T² with ν = N − 1 degrees of freedom keeps the level, the χ² (Wald) reference
// does not. Setting: AR(1), d = 3, ρ = 0.5, K = 4 chains, T = 500, b = 100 (a = 5 per chain,
// b ≫ τ = 3 so the batch means are nearly independent Gaussians), α = 0.05, 1000 seeds.
// Prediction: Hotelling rate = α; Wald rate = P(T² > χ²₃(0.95)) with T² ~ (3ν/(ν−2))·F(3, ν−2),
// ≈ 0.11 > α. Decision: α inside the 99.9 % interval of Hotelling's rate, and Wald's interval
// lies above α; MCSE ratio within 15 % (unbiased MCSE², averaged over 1000 seeds).
TEST(Calibration, HotellingKeepsTheLevelWithFewBatches) {
  const Ar1Experiment experiment = three_dim(4, 500, 100);
  const Vector truth{{1.0, -2.0, 0.5}};
  const NullCalibration hotelling =
      calibrate_mean_test(experiment, truth, 1000, 0.05, MeanTest::hotelling);
  const NullCalibration wald = calibrate_mean_test(experiment, truth, 1000, 0.05, MeanTest::wald);
  report("hotelling_few_batches", hotelling);
  report("wald_few_batches", wald);
  EXPECT_TRUE(hotelling.rate_consistent);
  EXPECT_GT(wald.rate_lower, 0.05);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(hotelling.mcse_ratio(i), 1.0, 0.15);
}

// Statement: per-coordinate z-tests with Bonferroni correction keep the family-wise level
// (≤ α, whatever the correlation). Setting as in the first test, 400 seeds. Decision: the
// lower end of the 99.9 % interval of the rate is ≤ α (the test is not anti-conservative).
TEST(Calibration, BonferroniKeepsTheFamilyWiseLevel) {
  const NullCalibration cal = calibrate_mean_test(three_dim(32, 2500, 50), Vector{{1.0, -2.0, 0.5}},
                                                  400, 0.05, MeanTest::bonferroni, 0.999, 100001);
  report("bonferroni", cal);
  EXPECT_LE(cal.rate_lower, 0.05);
}

}  // namespace
}  // namespace fedverify::estimators
