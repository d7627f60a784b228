// The statistics of estimators/ checked against processes whose answers are known in closed
// form: Gaussian AR(1) chains for the moments, MCSE, ESS and R̂; Gaussians, brute force and
// hand-sorted examples for the Wasserstein distances; the Wald test's power against a shifted
// prediction. No sampler of the project is used: data come from estimators::Stream directly.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "estimators/statistics/burn_in.hpp"
#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "estimators/statistics/wasserstein.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

namespace bm = boost::math;

// z_{1−α/(2m)}: two-sided normal quantile with a Bonferroni split over m comparisons.
double z_two_sided(double alpha, int comparisons = 1) {
  return bm::quantile(bm::complement(bm::normal(), alpha / (2.0 * comparisons)));
}

// ---------------------------------------------------------------------------------------------
// Gaussian AR(1) ensemble in ℝ^d with a common coefficient ρ:
//   x_{t+1} = m + ρ (x_t − m) + √(1 − ρ²) L ε_t,   ε_t ~ N(0, I),   L Lᵀ = Σ.
// Stationary law N(m, Σ); every coordinate has autocorrelation ρ^k at lag k.
struct Ar1 {
  Vector mean;
  Matrix cov;
  double rho;
};

// n·Var(x̄_n)/σ² for a stationary AR(1) chain of length n:
//   g(n) = (1+ρ)/(1−ρ) − 2ρ(1−ρⁿ)/(n(1−ρ)²)   → (1+ρ)/(1−ρ) = 2τ − 1 as n → ∞.
double ar1_g(double rho, double n) {
  return (1 + rho) / (1 - rho) - 2 * rho * (1 - std::pow(rho, n)) / (n * (1 - rho) * (1 - rho));
}

class Ar1Ensemble {
 public:
  // Starts each chain at m + offset_k + L z (stationary start when offsets are 0).
  Ar1Ensemble(const Ar1& model, int chains, std::uint64_t seed, const Matrix& offsets)
      : model_(model), chol_(model.cov.llt().matrixL()), state_(model.mean.size(), chains) {
    for (int k = 0; k < chains; ++k) {
      noise_.emplace_back(seed, Purpose::test, k);
      Stream init(seed, Purpose::initial_state, k);
      state_.col(k) = model.mean + offsets.col(k) + chol_ * draw(init);
    }
  }
  Ar1Ensemble(const Ar1& model, int chains, std::uint64_t seed)
      : Ar1Ensemble(model, chains, seed, Matrix::Zero(model.mean.size(), chains)) {}

  const Matrix& state() const { return state_; }

  void advance() {
    const double innovation = std::sqrt(1 - model_.rho * model_.rho);
    for (int k = 0; k < state_.cols(); ++k) {
      state_.col(k) = model_.mean + model_.rho * (state_.col(k) - model_.mean) +
                      innovation * (chol_ * draw(noise_[k]));
    }
  }

 private:
  Vector draw(Stream& s) const {
    Vector z(state_.rows());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = s.normal();
    return z;
  }
  Ar1 model_;
  Matrix chol_;
  Matrix state_;
  std::vector<Stream> noise_;
};

// Feeds `rounds` rounds (the current state first) into an accumulator; optionally records them.
MomentEstimate run_ar1(const Ar1& model, int chains, int rounds, std::uint64_t seed,
                       int batch_rounds = 0, std::vector<Matrix>* trace = nullptr,
                       double offset = 0.0) {
  Ar1Ensemble ensemble(model, chains, seed);
  StationaryMomentsAccumulator acc(static_cast<int>(model.mean.size()), chains, rounds,
                                   batch_rounds);
  for (int t = 0; t < rounds; ++t) {
    acc.add(ensemble.state().array() + offset);
    if (trace) trace->push_back(ensemble.state());
    ensemble.advance();
  }
  return acc.result();
}

Ar1 three_dim_model(double rho) {
  Ar1 model;
  model.mean = Vector{{1.0, -2.0, 0.5}};
  model.cov = Matrix{{1.0, 0.5, 0.2}, {0.5, 2.0, -0.3}, {0.2, -0.3, 0.5}};
  model.rho = rho;
  return model;
}

// ---------------------------------------------------------------------------------------------
// Moments: mean, covariance, their MCSEs, ESS and R̂ on stationary AR(1) chains.
//
// Setting: d = 3, ρ = 0.5, K = 64 chains × T = 4000 rounds, default batch length
// b = round(√T) = 63 (a = 63 batches per chain, 31 rounds left over: the indivisible case).
// Predictions (closed forms):
//   Var(x̄_i) = Σ_ii g(T)/(K T);  Var(Σ̂_ij) ≈ (Σ_ii Σ_jj + Σ_ij²)(1+ρ²)/((1−ρ²) K T) (Bartlett);
//   E[mean_cov_ii] = Σ_ii [N g(b) − g(ab)]/((N−1) K T), N = K a batch means (the batch-means
//   estimator's own expectation: it is biased low by the finite batch length);
//   ESS = K T (1−ρ)/(1+ρ).
// Decision: each comparison at family-wise α = 10⁻³ (Bonferroni over coordinates/entries); the
// relative error of a variance estimated from N batch means has sd √(2/(N−1)) (Gaussian batch
// means, their lag-1 correlation ≈ ρ/(b(1−ρ)²g(b)) ≈ 1 % neglected); the known finite-batch
// bias is added as a deterministic allowance where the target is the exact variance.
TEST(StationaryMoments, MatchAr1ClosedForms) {
  const double alpha = 1e-3;
  const Ar1 model = three_dim_model(0.5);
  const double rho = model.rho;
  const int chains = 64, rounds = 4000;
  const MomentEstimate est = run_ar1(model, chains, rounds, 20261125);
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

TEST(StationaryMoments, RejectsBadInput) {
  EXPECT_THROW(StationaryMomentsAccumulator(0, 4, 10), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 0, 10), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 4, 0), InputError);
  EXPECT_THROW(StationaryMomentsAccumulator(2, 4, 10, 11), InputError);
  StationaryMomentsAccumulator acc(2, 4, 10);
  EXPECT_THROW(acc.add(Matrix::Zero(2, 3)), InputError);
}

// ---------------------------------------------------------------------------------------------
// Burn-in rule: B is the least t with ρ^t D₀ ≤ fraction·scale (THEORY F1 gives ρ).
TEST(BurnIn, LeastRoundCountReachingTheTarget) {
  const BurnInRule rule{
      .contraction = 0.95, .initial_distance = 30.0, .scale = 2.0, .fraction = 0.01};
  const int b = burn_in_rounds(rule);
  const double target = rule.fraction * rule.scale;
  EXPECT_LE(std::pow(rule.contraction, b) * rule.initial_distance, target);
  EXPECT_GT(std::pow(rule.contraction, b - 1) * rule.initial_distance, target);
  EXPECT_EQ(burn_in_rounds({.contraction = 0.5, .initial_distance = 0.01, .scale = 2.0}), 0);
  EXPECT_THROW(burn_in_rounds({.contraction = 1.0, .initial_distance = 1, .scale = 1}), InputError);
  EXPECT_THROW(burn_in_rounds({.contraction = 0.5, .initial_distance = -1, .scale = 1}),
               InputError);
  EXPECT_THROW(burn_in_rounds({.contraction = 0.5, .initial_distance = 1, .scale = 0}), InputError);
  EXPECT_DOUBLE_EQ(burn_in_fraction_for(10000.0), 0.001);
}

// ---------------------------------------------------------------------------------------------
// Wasserstein distances.

// d×n sample of N(m, S) from Stream(seed, test, chain = index).
Matrix gaussian_sample(const Vector& m, const Matrix& s, int n, std::uint64_t seed) {
  const Matrix l = s.llt().matrixL();
  Matrix x(m.size(), n);
  for (int j = 0; j < n; ++j) {
    Stream stream(seed, Purpose::test, static_cast<std::uint64_t>(j));
    Vector z(m.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = stream.normal();
    x.col(j) = m + l * z;
  }
  return x;
}

// Closed forms the Bures formula must reproduce exactly (up to round-off, 10⁻¹² relative):
// in d = 1, W2² = (m1 − m2)² + (s1 − s2)²; for commuting (diagonal) covariances the same
// coordinate-wise; W2(μ, μ) = 0 even for a singular covariance (PSD-safe roots: the result is
// the square root of a round-off-sized number, so ≤ √(ε·tr S)·few ≈ 10⁻⁷).
TEST(Wasserstein, BuresClosedForms) {
  EXPECT_NEAR(bures_wasserstein(Vector{{1.0}}, Matrix{{4.0}}, Vector{{-2.0}}, Matrix{{9.0}}),
              std::sqrt(9.0 + 1.0), 1e-12);
  const Vector m1{{0.0, 1.0}}, m2{{1.0, 1.0}};
  const Matrix s1 = Vector{{1.0, 4.0}}.asDiagonal(), s2 = Vector{{4.0, 1.0}}.asDiagonal();
  EXPECT_NEAR(bures_wasserstein(m1, s1, m2, s2), std::sqrt(1.0 + 1.0 + 1.0), 1e-12);
  const Matrix singular{{1.0, 1.0}, {1.0, 1.0}};
  EXPECT_LE(bures_wasserstein(m1, singular, m1, singular), 1e-7);
  EXPECT_THROW(bures_wasserstein(m1, s1, Vector{{1.0}}, s2), InputError);
  EXPECT_THROW(bures_wasserstein(m1, Matrix{{1.0, 2.0}, {0.0, 1.0}}, m2, s2), InputError);
}

// Exact empirical W2 = brute force over all n! assignments, n = 1..7 (d = 3). The network
// simplex works with costs rounded to integers at scale 2⁵⁸/(n·max cost) (see header), so the
// assignment is optimal to ≤ n·max cost·2⁻⁵⁸ in the sum; 10⁻¹² relative covers that and the
// double round-off of sums of 7 terms.
TEST(Wasserstein, EmpiricalEqualsBruteForceOverPermutations) {
  const Matrix s{{1.0, 0.3, 0.0}, {0.3, 2.0, 0.1}, {0.0, 0.1, 0.5}};
  for (int n = 1; n <= 7; ++n) {
    const Matrix x = gaussian_sample(Vector::Zero(3), s, n, 100 + n);
    const Matrix y = gaussian_sample(Vector{{0.5, 0.0, -0.5}}, s, n, 200 + n);
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    double best = std::numeric_limits<double>::infinity();
    do {
      double total = 0;
      for (int i = 0; i < n; ++i) total += (x.col(i) - y.col(perm[i])).squaredNorm();
      best = std::min(best, total);
    } while (std::next_permutation(perm.begin(), perm.end()));
    const double brute = std::sqrt(best / n);
    const double exact = empirical_w2(x, y);
    EXPECT_NEAR(exact, brute, 1e-12 * brute) << "n = " << n;
    std::vector<int> sigma = optimal_assignment(x, y);
    std::sort(sigma.begin(), sigma.end());
    for (int i = 0; i < n; ++i) EXPECT_EQ(sigma[i], i);  // a permutation
  }
}

// One dimension: sorting by hand. x = {3, 1, 2}, y = {0, 5, 1}: sorted pairs (1,0), (2,1),
// (3,5), W2² = (1 + 1 + 4)/3 = 2. The assignment solver agrees on a 1-D sample.
TEST(Wasserstein, OneDimensionalBySorting) {
  EXPECT_NEAR(w2_1d({3, 1, 2}, {0, 5, 1}), std::sqrt(2.0), 1e-15);
  const Matrix x = gaussian_sample(Vector{{0.0}}, Matrix{{1.0}}, 200, 5);
  const Matrix y = gaussian_sample(Vector{{1.0}}, Matrix{{2.0}}, 200, 6);
  const double sorted = w2_1d(std::vector<double>(x.data(), x.data() + 200),
                              std::vector<double>(y.data(), y.data() + 200));
  EXPECT_NEAR(empirical_w2(x, y), sorted, 1e-12 * sorted);
  EXPECT_THROW(w2_1d({1, 2}, {1}), InputError);
}

// Sliced W2: every projection is 1-Lipschitz, so SW2 ≤ W2 for any draw of directions (up to
// round-off, 10⁻¹² relative); in d = 1 the only directions are ±1 and SW2 = the 1-D W2.
TEST(Wasserstein, SlicedIsBelowExactAndOneDimensionalInDimensionOne) {
  const Matrix s{{1.0, 0.8, 0.0}, {0.8, 1.0, 0.0}, {0.0, 0.0, 3.0}};
  const Matrix x = gaussian_sample(Vector::Zero(3), s, 150, 21);
  const Matrix y = gaussian_sample(Vector{{1.0, -1.0, 0.0}}, s.transpose() * 0.5, 150, 22);
  const double exact = empirical_w2(x, y);
  const double sliced = sliced_w2(x, y, 200, 9);
  fmt::print("d = 3, n = 150: sliced W2 {:.4f} <= exact W2 {:.4f}\n", sliced, exact);
  EXPECT_LE(sliced, exact * (1 + 1e-12));
  EXPECT_EQ(sliced, sliced_w2(x, y, 200, 9));  // same seed ⇒ same directions

  const Matrix x1 = gaussian_sample(Vector{{0.0}}, Matrix{{1.0}}, 100, 31);
  const Matrix y1 = gaussian_sample(Vector{{2.0}}, Matrix{{0.5}}, 100, 32);
  const double one_d = w2_1d(std::vector<double>(x1.data(), x1.data() + 100),
                             std::vector<double>(y1.data(), y1.data() + 100));
  EXPECT_NEAR(sliced_w2(x1, y1, 5, 1), one_d, 1e-12 * one_d);
}

// Empirical vs Bures. Setting: d = 2, N(m1, S1) vs N(m2, S2), n = 800 samples each.
// Reasoning (rigorous parts marked): |W2(μ_n, ν_n) − W2(μ, ν)| ≤ W2(μ_n, μ) + W2(ν_n, ν)
// (triangle inequality); W2²(μ_n, μ) ≤ E_{μ'_n} W2²(μ_n, μ'_n) for an independent sample μ'_n
// (joint convexity of W2², E μ'_n = μ). Assumption: the realised W2(μ_n, μ'_n) is within a
// factor 1.5 of its root mean square (concentration; at n = 800 the spread over seeds is a few
// %). Tolerance: 1.5 (W2(μ_n, μ'_n) + W2(ν_n, ν'_n)) — it shrinks like the empirical rate
// (≈ √(log n / n) for Gaussians in d = 2).
TEST(Wasserstein, EmpiricalApproachesBuresForLargeGaussianSamples) {
  const int n = 800;
  const Vector m1{{0.0, 0.0}}, m2{{1.0, 0.5}};
  const Matrix s1{{1.0, 0.6}, {0.6, 1.0}}, s2{{2.0, -0.3}, {-0.3, 0.5}};
  const Matrix x = gaussian_sample(m1, s1, n, 41), x2 = gaussian_sample(m1, s1, n, 42);
  const Matrix y = gaussian_sample(m2, s2, n, 43), y2 = gaussian_sample(m2, s2, n, 44);
  const double bures = bures_wasserstein(m1, s1, m2, s2);
  const double empirical = empirical_w2(x, y);
  const double tolerance = 1.5 * (empirical_w2(x, x2) + empirical_w2(y, y2));
  fmt::print("Bures W2 {:.4f}, empirical W2 (n = {}) {:.4f}, |diff| {:.4f}, tolerance {:.4f}\n",
             bures, n, empirical, std::abs(empirical - bures), tolerance);
  EXPECT_LE(std::abs(empirical - bures), tolerance);
}

// Two samples of the same law: W2(μ_n, μ'_n) → 0. Known rate (Fournier & Guillin 2015,
// d = 2 < 4): E W2² ≲ n^{-1/2}, i.e. W2 ≲ n^{-1/4} (Gaussians do better, ≈ √(log n/n)).
// Decision: the log–log slope of the seed-averaged W2 over n ∈ {50, 200, 800} is ≤ −1/4.
TEST(Wasserstein, EmpiricalDistanceBetweenSamplesOfOneLawShrinks) {
  const Matrix s{{1.0, 0.5}, {0.5, 2.0}};
  std::vector<double> ns{50, 200, 800}, w;
  for (double n : ns) {
    double sum = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const std::uint64_t seed = 1000 + 10 * static_cast<std::uint64_t>(n) + 2 * rep;
      sum += empirical_w2(gaussian_sample(Vector::Zero(2), s, static_cast<int>(n), seed),
                          gaussian_sample(Vector::Zero(2), s, static_cast<int>(n), seed + 1));
    }
    w.push_back(sum / 3);
  }
  const double slope = std::log(w[2] / w[0]) / std::log(ns[2] / ns[0]);
  fmt::print(
      "W2 between samples of one law: n=50 {:.4f}, n=200 {:.4f}, n=800 {:.4f}; slope {:.3f}\n",
      w[0], w[1], w[2], slope);
  EXPECT_GT(w[0], w[1]);
  EXPECT_GT(w[1], w[2]);
  EXPECT_LE(slope, -0.25);
}

// ---------------------------------------------------------------------------------------------
// Decision rules.

// Power of the Wald test. Setting: d = 2 independent coordinates (Σ = diag(1, 2)), ρ = 0.5,
// K = 32, T = 1024 (b = 32, N = 1024 batch means), prediction = m + 3·sd(x̄_1)·e₁, α = 0.05.
// Prediction: T ~ noncentral χ²₂(λ) with λ = 9·Var(x̄_1)/E[mean_cov_11] (the batch-means
// estimate is biased low by the finite batch, which raises λ slightly); power =
// P(χ²₂(λ) > χ²₂(0.95)). Measurement: rejection rate over 100 seeds. Decision: the
// theoretical power lies in the 99.9 % Clopper–Pearson interval of the rate, and the rate is
// ≥ 0.7 ("rejects with high probability").
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
    const MomentEstimate est = run_ar1(model, chains, rounds, 5000 + s);
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
  const MomentEstimate est = run_ar1(model, 64, 2000, 77);
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
// Replicated means (moments.hpp) and the z rules of decide.hpp (e)–(k).
//
// Each rule is calibrated on synthetic estimates whose law is known: under its null the
// rejection (or, for confirming rules, confirmation) rate over kTrials independent draws must be
// within 4 binomial standard errors of its nominal level, and against a planted shift the rule
// must react in ≥ 95 % of the draws. The draws are Stream(seed, Purpose::test), so the test is
// deterministic.

constexpr int kTrials = 10000;

// |rate − p| ≤ 4 √(p(1 − p)/n): the false-alarm rate agrees with its nominal level.
void expect_rate_near(int events, int trials, double p, const char* what) {
  const double rate = static_cast<double>(events) / trials;
  const double mcse = std::sqrt(p * (1.0 - p) / trials);
  fmt::print("{}: rate {:.4f} vs nominal {:.4f} (MCSE {:.4f})\n", what, rate, p, mcse);
  EXPECT_LE(std::abs(rate - p), 4.0 * mcse) << what;
}

// Counts the trials t = 0..kTrials−1 for which `event(stream)` is true, each with its own stream.
template <class Event>
int count_events(std::uint64_t seed, Event event) {
  int n = 0;
  for (int t = 0; t < kTrials; ++t) {
    Stream s(seed, Purpose::test, static_cast<std::uint64_t>(t));
    n += event(s) ? 1 : 0;
  }
  return n;
}

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

}  // namespace
}  // namespace fedverify::estimators
