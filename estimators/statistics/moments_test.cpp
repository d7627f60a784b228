// The stationary moments of estimators/statistics/moments.hpp checked against processes whose
// answers are known in closed form: Gaussian AR(1) chains (estimators/statistics/testing/ar1.hpp)
// for the mean, covariance, MCSE, ESS and R̂; replicated means against their closed form and their
// calibration. No sampler of the project is used: data come from estimators::Stream directly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/testing/ar1.hpp"
#include "estimators/statistics/testing/mcse_calibration.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/statistical_checks.hpp"

namespace fedverify::estimators {
namespace {

namespace bm = boost::math;
using verify::Ar1;
using verify::ar1_g;
using verify::Ar1Ensemble;
using verify::count_events;
using verify::expect_rate_near;
using verify::kTrials;
using verify::run_ar1;
using verify::three_dim_model;
using verify::z_two_sided;

// ---------------------------------------------------------------------------------------------
// Moments: mean, covariance, their MCSEs, ESS and R̂ on stationary AR(1) chains.
//
// Setting: d = 3, ρ = 0.5, K = 64 chains × T = 4000 rounds, batch length b = 63 given
// (a = 63 batches per chain, 31 rounds left over: the indivisible case).
// Predictions (closed forms):
//   Var(x̄_i) = Σ_ii g(T)/(K T);  Var(Σ̂_ij) ≈ (Σ_ii Σ_jj + Σ_ij²)(1+ρ²)/((1−ρ²) K T) (Bartlett);
//   E[mean_cov_ii] = Σ_ii [N g(b) − g(ab)]/((N−1) K T), N = K a batch means (the batch-means
//   estimator's own expectation: it is biased low by the finite batch length);
//   ESS = K T (1−ρ)/(1+ρ).
// Decision: each comparison at family-wise α = 10⁻³ (Bonferroni over coordinates/entries); the
// relative error of a variance estimated from N batch means has sd √(2/(N−1)) (Gaussian batch
// means, their lag-1 correlation ≈ ρ/(b(1−ρ)²g(b)) ≈ 1 % neglected); the known finite-batch
// bias is added as a deterministic allowance where the target is the exact variance.
// pooled_mean: equal weights, se (1/M)√Σ se_i², dof the smallest positive one.
TEST(ReplicatedMeans, PooledMeanWeighsEstimatesEqually) {
  const ReplicatedMean p = pooled_mean({{1.0, 1.0, 9.0}, {6.0, 2.0, 0.0}, {5.0, 2.0, 3.0}});
  EXPECT_NEAR(p.mean, 4.0, 1e-15);
  EXPECT_NEAR(p.se, 3.0 / 3.0, 1e-15);
  EXPECT_EQ(p.dof, 3.0);
  EXPECT_EQ(pooled_mean({}).se, 0.0);
}

TEST(StationaryMoments, MatchAr1ClosedForms) {
  const double alpha = 1e-3;
  const Ar1 model = three_dim_model(0.5);
  const double rho = model.rho;
  const int chains = 64, rounds = 4000;
  const MomentEstimate est = run_ar1(model, chains, rounds, 20261125, 63);
  ASSERT_EQ(est.batch_rounds, 63);
  ASSERT_EQ(est.batches_per_chain, 63);
  ASSERT_EQ(est.samples, static_cast<std::int64_t>(chains) * rounds);

  const double n = static_cast<double>(est.samples);
  const double b = est.batch_rounds;
  const double batches = static_cast<double>(est.batches());
  const double ab = b * est.batches_per_chain;
  const double rel_var_sd = std::sqrt(2.0 / (batches - 1.0));  // of a batch-means variance

  const double z_mean = z_two_sided(alpha, 3);
  for (int i = 0; i < 3; ++i) {
    const double sigma2 = model.cov(i, i);
    const double sd_exact = std::sqrt(sigma2 * ar1_g(rho, rounds) / n);
    const double expected_mcse2 =
        sigma2 * (batches * ar1_g(rho, b) - ar1_g(rho, ab)) / ((batches - 1.0) * n);
    const double expected_mcse = std::sqrt(expected_mcse2);
    const double batch_bias = std::abs(expected_mcse / sd_exact - 1.0);
    const double tol_mcse = z_mean * rel_var_sd / 2.0;  // sd of √(variance) is half as large
    const double ess_exact = n * (1 - rho) / (1 + rho);
    const double ess_bias = std::abs(sigma2 / expected_mcse2 / ess_exact - 1.0);
    const double tol_ess =
        z_mean * std::sqrt(rel_var_sd * rel_var_sd + 2 * (1 + rho * rho) / ((1 - rho * rho) * n));
    fmt::print(
        "coord {}: mean {:.5f} (true {:.5f}, exact sd {:.5f}); MCSE {:.5f} vs E[batch MCSE] "
        "{:.5f} vs exact {:.5f} (finite-batch bias {:.2f} %); ESS {:.0f} vs exact {:.0f}; "
        "R-hat {:.5f}\n",
        i, est.mean(i), model.mean(i), sd_exact, est.mean_mcse(i), expected_mcse, sd_exact,
        100 * batch_bias, est.ess(i), ess_exact, est.rhat(i));

    EXPECT_LE(std::abs(est.mean(i) - model.mean(i)), z_mean * sd_exact);
    EXPECT_LE(std::abs(est.mean_mcse(i) / expected_mcse - 1.0), tol_mcse);
    EXPECT_LE(std::abs(est.mean_mcse(i) / sd_exact - 1.0), tol_mcse + batch_bias);
    EXPECT_LE(std::abs(est.ess(i) / ess_exact - 1.0), tol_ess + ess_bias);
  }

  // Covariance entries and their MCSE (6 distinct entries).
  const double z_cov = z_two_sided(alpha, 6);
  // Products x_i x_j have autocorrelation ρ^{2k}: finite-batch bias of their batch-means
  // variance, relative: 2ρ²/(b(1−ρ²)²) / ((1+ρ²)/(1−ρ²)).
  const double rho2 = rho * rho;
  const double product_batch_bias =
      2 * rho2 / (b * (1 - rho2) * (1 - rho2)) / ((1 + rho2) / (1 - rho2));
  for (int j = 0; j < 3; ++j) {
    for (int i = j; i < 3; ++i) {
      const double sd_exact =
          std::sqrt((model.cov(i, i) * model.cov(j, j) + model.cov(i, j) * model.cov(i, j)) *
                    (1 + rho2) / ((1 - rho2) * n));
      fmt::print("cov({},{}): {:.5f} (true {:.5f}); MCSE {:.3e} vs exact {:.3e}\n", i, j,
                 est.cov(i, j), model.cov(i, j), est.cov_mcse(i, j), sd_exact);
      EXPECT_LE(std::abs(est.cov(i, j) - model.cov(i, j)), z_cov * sd_exact);
      EXPECT_LE(std::abs(est.cov_mcse(i, j) / sd_exact - 1.0),
                z_cov * rel_var_sd / 2.0 + product_batch_bias);
    }
  }

  // mean_cov is the full matrix: its off-diagonal correlations are those of Σ (common ρ).
  const Matrix corr_true = model.cov.diagonal().cwiseSqrt().cwiseInverse().asDiagonal() *
                           model.cov * model.cov.diagonal().cwiseSqrt().cwiseInverse().asDiagonal();
  for (int j = 0; j < 3; ++j) {
    for (int i = j + 1; i < 3; ++i) {
      const double corr = est.mean_cov(i, j) / (est.mean_mcse(i) * est.mean_mcse(j));
      // Fisher z: sd of atanh(r) from N batch means is 1/√(N − 3).
      EXPECT_LE(std::abs(std::atanh(corr) - std::atanh(corr_true(i, j))),
                z_cov / std::sqrt(batches - 3.0))
          << "mean_cov correlation (" << i << "," << j << ") = " << corr;
    }
  }

  // Split-R̂ of stationary chains: R̂² ≈ (n−1)/n + (B/n)/W with E[B/n]/W ≈ g(n)/n for half-chains
  // of length n = T/2; B/n comes from m = 2K half-chain means (relative sd √(2/(m−1))).
  const double half = rounds / 2.0;
  const double m_half = 2.0 * chains;
  const double rhat_upper =
      std::sqrt(1.0 + ar1_g(rho, half) * (1.0 + z_mean * std::sqrt(2.0 / (m_half - 1.0))) / half);
  const double rhat_lower = std::sqrt((half - 1.0) / half);  // B ≥ 0
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(est.rhat(i), rhat_upper);
    EXPECT_GE(est.rhat(i), rhat_lower);
  }
  fmt::print("R-hat bounds for mixed chains: [{:.5f}, {:.5f}]\n", rhat_lower, rhat_upper);
}

// R̂ flags chains that have not mixed. Setting: ρ = 0.99 (τ ≈ 100 rounds), K = 8 chains started
// at m ± 20σ (alternating), T = 400 rounds, no burn-in. The first-half means then differ by
// ≈ ±20σ(1 − ρ²⁰⁰)/(200(1 − ρ)) ≈ ±8.7σ between chains, far above the within-chain spread.
// Decision: R̂ > 1.1 (the usual "not converged" threshold) in every coordinate.
TEST(StationaryMoments, RhatFlagsChainsStartedFarApart) {
  const Ar1 model = three_dim_model(0.99);
  const int chains = 8, rounds = 400;
  Matrix offsets(3, chains);
  for (int k = 0; k < chains; ++k) {
    offsets.col(k) = (k % 2 == 0 ? 20.0 : -20.0) * model.cov.diagonal().cwiseSqrt();
  }
  Ar1Ensemble ensemble(model, chains, 7, offsets);
  StationaryMomentsAccumulator acc(3, chains, rounds);
  for (int t = 0; t < rounds; ++t, ensemble.advance()) acc.add(ensemble.state());
  const MomentEstimate est = acc.result();
  fmt::print("R-hat of chains started at ±20σ: {:.3f} {:.3f} {:.3f}\n", est.rhat(0), est.rhat(1),
             est.rhat(2));
  for (int i = 0; i < 3; ++i) EXPECT_GT(est.rhat(i), 1.1);
}

// The streaming estimates equal the textbook definitions evaluated on the stored samples:
// two-pass mean and covariance; batch means with b = 7 on T = 51 rounds (7 batches per chain,
// 2 rounds left over, not batched); split-R̂ with the middle round of the odd T skipped.
// Tolerance: sums of ≤ 255 terms of size O(1) in double, relative error ≲ 255 ε ≈ 6·10⁻¹⁴;
// we allow 10⁻¹¹.
TEST(StationaryMoments, StreamingEqualsDefinitionsOnStoredSamples) {
  const Ar1 model = three_dim_model(0.7);
  const int chains = 5, rounds = 51, b = 7;
  std::vector<Matrix> trace;
  const MomentEstimate est = run_ar1(model, chains, rounds, 3, b, &trace);
  const double tol = 1e-11;

  Matrix all(3, chains * rounds);
  for (int t = 0; t < rounds; ++t) all.middleCols(t * chains, chains) = trace[t];
  const Vector mean = all.rowwise().mean();
  const Matrix centred = all.colwise() - mean;
  const Matrix cov = centred * centred.transpose() / (static_cast<double>(all.cols()) - 1.0);
  EXPECT_LE((est.mean - mean).cwiseAbs().maxCoeff(), tol);
  EXPECT_LE((est.cov - cov).cwiseAbs().maxCoeff(), tol);

  const int a = rounds / b;
  Matrix batch_means(3, chains * a);
  for (int k = 0; k < chains; ++k) {
    for (int j = 0; j < a; ++j) {
      Vector s = Vector::Zero(3);
      for (int t = j * b; t < (j + 1) * b; ++t) s += trace[t].col(k);
      batch_means.col(k * a + j) = s / b;
    }
  }
  const Matrix bc = batch_means.colwise() - batch_means.rowwise().mean();
  const Matrix s_batch = bc * bc.transpose() / (chains * a - 1.0);
  const Matrix mean_cov = b * s_batch / (static_cast<double>(chains) * rounds);
  EXPECT_EQ(est.batches_per_chain, a);
  EXPECT_LE((est.mean_cov - mean_cov).cwiseAbs().maxCoeff(), tol * mean_cov.cwiseAbs().maxCoeff());

  const int n = rounds / 2;  // 25; round 25 (the middle) is skipped
  for (int i = 0; i < 3; ++i) {
    std::vector<double> means, vars;
    for (int k = 0; k < chains; ++k) {
      for (int start : {0, rounds - n}) {
        double s = 0, s2 = 0;
        for (int t = start; t < start + n; ++t) s += trace[t](i, k);
        const double m = s / n;
        for (int t = start; t < start + n; ++t) s2 += (trace[t](i, k) - m) * (trace[t](i, k) - m);
        means.push_back(m);
        vars.push_back(s2 / (n - 1));
      }
    }
    const double m_chains = static_cast<double>(means.size());
    const double w = std::accumulate(vars.begin(), vars.end(), 0.0) / m_chains;
    const double grand = std::accumulate(means.begin(), means.end(), 0.0) / m_chains;
    double b_over_n = 0;
    for (double m : means) b_over_n += (m - grand) * (m - grand);
    b_over_n /= m_chains - 1;
    const double rhat = std::sqrt(((n - 1.0) / n * w + b_over_n) / w);
    EXPECT_NEAR(est.rhat(i), rhat, tol);
  }
}

// Numerical stability: the same chains shifted by 10⁸ (σ ≈ 1). Raw sums of squares would lose
// all digits (relative error ε·(10⁸)² ≈ 2); the pairwise update loses only those of forming
// x − mean, relative ≈ ε·10⁸·few ≈ 10⁻⁷·…; we require the covariance to agree with the
// unshifted run to 10⁻⁵ relative (Frobenius) and the MCSE to 10⁻⁵ relative.
TEST(StationaryMoments, CovarianceSurvivesLargeOffset) {
  const Ar1 model = three_dim_model(0.5);
  const MomentEstimate plain = run_ar1(model, 32, 2000, 11);
  const MomentEstimate shifted = run_ar1(model, 32, 2000, 11, 0, nullptr, 1e8);
  const double rel_cov = (shifted.cov - plain.cov).norm() / plain.cov.norm();
  const double rel_mcse =
      (shifted.mean_mcse - plain.mean_mcse).cwiseQuotient(plain.mean_mcse).cwiseAbs().maxCoeff();
  fmt::print("offset 1e8: relative covariance change {:.2e}, MCSE change {:.2e}\n", rel_cov,
             rel_mcse);
  EXPECT_LE(rel_cov, 1e-5);
  EXPECT_LE(rel_mcse, 1e-5);
}

// ---------------------------------------------------------------------------------------------
// The default batch length (kAutoBatchRounds, default_batch_rounds): the longest batches that
// leave at least 32 batch means pooled over the chains.

// Its definition: a = min(T, ⌈32/K⌉) batches per chain of b = ⌊T/a⌋ rounds.
TEST(DefaultBatchLength, LongestBatchesWithThirtyTwoBatchMeans) {
  EXPECT_EQ(default_batch_rounds(900, 256), 900);  // one batch per chain
  EXPECT_EQ(default_batch_rounds(900, 32), 900);
  EXPECT_EQ(default_batch_rounds(900, 31), 450);  // 2 per chain: 62 batch means
  EXPECT_EQ(default_batch_rounds(900, 8), 225);
  EXPECT_EQ(default_batch_rounds(900, 5), 128);  // ⌈32/5⌉ = 7 per chain, 4 rounds left over
  EXPECT_EQ(default_batch_rounds(900, 1), 28);   // 32 batches, 4 rounds left over
  EXPECT_EQ(default_batch_rounds(4, 1), 1);      // T < 32: batches of one round
  EXPECT_THROW(default_batch_rounds(0, 4), InputError);
  EXPECT_THROW(default_batch_rounds(10, 0), InputError);
}

// The accumulator's default is that length: bit-identical to giving it (K = 5, T = 51: b = 7,
// the setting of StreamingEqualsDefinitionsOnStoredSamples), and one batch per chain for K = 40.
TEST(DefaultBatchLength, AccumulatorUsesIt) {
  const Ar1 model = three_dim_model(0.7);
  const MomentEstimate automatic = run_ar1(model, 5, 51, 3, kAutoBatchRounds);
  const MomentEstimate given = run_ar1(model, 5, 51, 3, 7);
  EXPECT_EQ(automatic.batch_rounds, 7);
  EXPECT_EQ(automatic.batches_per_chain, 7);
  EXPECT_EQ(automatic.mean_cov, given.mean_cov);
  EXPECT_EQ(automatic.cov_mcse, given.cov_mcse);
  const MomentEstimate many = run_ar1(model, 40, 51, 3);
  EXPECT_EQ(many.batch_rounds, 51);
  EXPECT_EQ(many.batches(), 40);
}

// The default MCSE is calibrated on AR(1) chains at every autocorrelation; the former default
// round(√T) is not (a smaller version of verify/mcse_calibration_slowtest.cpp).
// Setting: d = 3 AR(1) (three_dim_model), K = 256 chains, T = 900 rounds, stationary start,
// ρ ∈ {0.5, 0.9, 0.99}, G = 20 replications. Exact sd of the mean: √(Σ_ii g(T)/(K T)).
// Decision: equivalence of R = √E[MCSE²]/sd with 1 within 0.10 (two one-sided tests,
// estimators/statistics/testing/mcse_calibration.hpp), α = 0.01 Bonferroni-split over the 9
// comparisons and the 3 of the planted check. Planted perturbation: b = round(√900) = 30 forced at
// ρ = 0.9 must be significantly too small (R + z·se < 0.9; predicted R = √(g(30)/g(900)) = 0.84).
TEST(DefaultBatchLength, McseIsCalibratedOnAr1) {
  const double alpha = 0.01 / 12;
  const int chains = 256, rounds = 900, replications = 20;
  const auto calibration = [&](double rho, int batch_rounds) {
    const Ar1 model = three_dim_model(rho);
    const Matrix exact = model.cov * (ar1_g(rho, rounds) / (static_cast<double>(chains) * rounds));
    return verify::calibrate_mcse(
        [&](std::uint64_t seed) { return run_ar1(model, chains, rounds, seed, batch_rounds); },
        model.mean, exact, replications, 500);
  };
  for (double rho : {0.5, 0.9, 0.99}) {
    const verify::McseCalibration cal = calibration(rho, kAutoBatchRounds);
    for (int i = 0; i < 3; ++i) {
      fmt::print("rho {} auto coord {}: {}\n", rho, i, cal.describe(i));
      EXPECT_TRUE(verify::mcse_equivalent(cal.ratio(i), cal.ratio_se(i), 0.10, alpha))
          << "rho " << rho << " coordinate " << i << ": " << cal.describe(i);
    }
  }
  const verify::McseCalibration old = calibration(0.9, 30);
  for (int i = 0; i < 3; ++i) {
    fmt::print("rho 0.9 b 30 coord {}: {}\n", i, old.describe(i));
    EXPECT_TRUE(verify::mcse_too_small(old.ratio(i), old.ratio_se(i), 0.10, alpha))
        << old.describe(i);
  }
}

TEST(StationaryMoments, RejectsBadInput) {
  EXPECT_THROW(StationaryMomentsAccumulator(0, 4, 10), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 0, 10), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 4, 0), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 4, 10, 11), InputError);
  StationaryMomentsAccumulator acc(2, 4, 10);
  EXPECT_THROW(acc.add(Matrix::Zero(2, 3)), InputError);
}

// ---------------------------------------------------------------------------------------------
// Replicated means. The calibration draws are Stream(seed, Purpose::test) (count_events), so the
// tests are deterministic.

// Setting: values {1, 2, 3, 4}. Prediction: mean 2.5, sample variance 5/3, SE = √(5/12). The
// vector form on a 1 × G matrix agrees to round-off; fewer than 2 replications are refused.
TEST(ReplicatedMean, ClosedFormAndVectorForm) {
  const ReplicatedMean r = replicated_mean(std::vector<double>{1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(r.mean, 2.5);
  EXPECT_NEAR(r.se, std::sqrt(5.0 / 12.0), 1e-15);
  const ReplicatedMeanVector v =
      replicated_mean(Matrix{{1.0, 2.0, 3.0, 4.0}, {0.0, 0.0, 1.0, 1.0}});
  EXPECT_NEAR(v.mean(0), r.mean, 1e-15);
  EXPECT_NEAR(v.se()(0), r.se, 1e-15);
  EXPECT_NEAR(v.mean_cov(0, 1), (-1.5 * -0.5 + -0.5 * -0.5 + 0.5 * 0.5 + 1.5 * 0.5) / 12.0, 1e-15);
  EXPECT_THROW(replicated_mean(std::vector<double>{1.0}), InputError);
  EXPECT_THROW(replicated_mean(Matrix(2, 1)), InputError);
}

// Setting: G = 20 i.i.d. N(3, 4) replications, 10⁴ trials. Prediction: the SE is calibrated, so
// |mean − 3| ≤ z_{0.975}·SE in 95 % of the trials up to the t_19 tail (P(|T_19| > 1.96) =
// 0.0648). Decision: the miss rate is within 4 MCSE of 0.0648.
TEST(ReplicatedMean, StandardErrorIsCalibrated) {
  const int misses = count_events(101, [](Stream& s) {
    std::vector<double> x(20);
    for (double& v : x) v = 3.0 + 2.0 * s.normal();
    const ReplicatedMean r = replicated_mean(x);
    return std::abs(r.mean - 3.0) > 1.959963984540054 * r.se;
  });
  const double t_tail = 2.0 * bm::cdf(bm::complement(bm::students_t(19.0), 1.959963984540054));
  expect_rate_near(misses, kTrials, t_tail, "replicated mean, 95 % z interval, G = 20");
}

}  // namespace
}  // namespace fedverify::estimators
