// The simulation engine (estimators/chains, estimators/simulate): reproducibility, exactness of
// the samplers against the closed forms of THEORY §1–2 and §6, Scaffold's invariant, divergence
// detection and the planted Scaffold bugs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/round.hpp"
#include "estimators/simulation/simulate.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/planted/scaffold_bugs.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// --- Problems, generated inline from the test stream -------------------------------------------

Matrix normal_matrix(Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  return m;
}

// Heterogeneous quadratic: A_c = QΛQᵀ with spectrum in [0.5, 2], b_c ~ N(0, I),
// S_c = noise · GGᵀ/d (noise = 0 gives deterministic gradients).
theory::QuadraticProblem quadratic(int d, int n, double noise, std::uint64_t seed = 7) {
  Stream s(seed, Purpose::test);
  std::vector<theory::QuadraticClient> clients;
  for (int c = 0; c < n; ++c) {
    const Eigen::HouseholderQR<Matrix> qr(normal_matrix(s, d, d));
    const Matrix q = qr.householderQ();
    Vector spectrum(d);
    for (int i = 0; i < d; ++i) spectrum(i) = 0.5 + 1.5 * s.uniform();
    const Matrix a = q * spectrum.asDiagonal() * q.transpose();
    const Matrix g = normal_matrix(s, d, d);
    clients.push_back({symmetric_part(a), normal_matrix(s, d, 1).col(0),
                       symmetric_part(noise * g * g.transpose() / d)});
  }
  return theory::QuadraticProblem(std::move(clients));
}

theory::LogisticProblem logistic(int d, int n, int samples, int batch, std::uint64_t seed = 11) {
  Stream s(seed, Purpose::test);
  std::vector<theory::LogisticClient> clients;
  for (int c = 0; c < n; ++c) {
    const Matrix f = normal_matrix(s, samples, d);
    const Vector w = normal_matrix(s, d, 1).col(0);
    Vector y(samples);
    for (int j = 0; j < samples; ++j) y(j) = f.row(j).dot(w) + s.normal() > 0 ? 1.0 : -1.0;
    clients.push_back({f, y});
  }
  return theory::LogisticProblem(std::move(clients), 0.1, batch);
}

SamplerOptions options(Algorithm algorithm, double gamma, int h, std::uint64_t seed = 3) {
  SamplerOptions o;
  o.algorithm = algorithm;
  o.step = {gamma, h};
  o.seed = seed;
  return o;
}

// Chains start at distinct points (column k = k/K · 1) so that mixing columns up would show.
Matrix spread_start(int d, int k) {
  Matrix x(d, k);
  for (int j = 0; j < k; ++j) x.col(j).setConstant(static_cast<double>(j) / k - 0.5);
  return x;
}

// Two-sided standard-normal quantile for a per-comparison level.
double z_quantile(double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / 2));
}

// --- Reproducibility ----------------------------------------------------------------------------

// Statement: same seed ⇒ bit-identical SimulationResult whatever the number of threads (the
// block partition among threads must not change any number). Decision: exact equality.
TEST(Engine, SimulateIsBitIdenticalOnOneAndTwoThreads) {
  const auto q = quadratic(4, 3, 1.0);
  const auto lg = logistic(3, 3, 40, 2);
  struct Case {
    const theory::Problem* problem;
    Algorithm algorithm;
    int h;
  };
  for (const Case& c : {Case{&q, Algorithm::fedavg, 3}, Case{&q, Algorithm::scaffold, 3},
                        Case{&q, Algorithm::fedrr, 2}, Case{&lg, Algorithm::fedavg, 3},
                        Case{&lg, Algorithm::sgd, 1}}) {
    SimulationSpec spec;
    spec.algorithm = c.algorithm;
    spec.step = {0.05, c.h};
    spec.chains = 37;  // not a multiple of the block width
    spec.rounds = 30;
    spec.burn_in = 10;
    spec.seed = 12345;
    spec.threads = 1;
    const SimulationResult one = simulate(*c.problem, spec);
    spec.threads = 2;
    const SimulationResult two = simulate(*c.problem, spec);
    SCOPED_TRACE(theory::to_string(c.algorithm));
    ASSERT_FALSE(one.diverged);
    EXPECT_EQ(one.final_state, two.final_state);
    EXPECT_EQ(one.moments.mean, two.moments.mean);
    EXPECT_EQ(one.moments.cov, two.moments.cov);
    EXPECT_EQ(one.chain_steps, two.chain_steps);
    const int runs = c.algorithm == Algorithm::fedrr ? 2 : 1;
    EXPECT_EQ(one.chain_steps,
              std::int64_t{runs} * spec.chains * spec.rounds * c.problem->num_clients() * c.h);
  }
}

// Statement: chain k sees the same noise whatever K (and so the same trajectory).
// Decision: columns 0…7 of a K = 8 and a K = 1003 ensemble are bit-identical after 5 rounds.
TEST(Engine, ChainKIsTheSameWhateverTheNumberOfChains) {
  const auto q = quadratic(5, 3, 1.0);
  const auto lg = logistic(4, 2, 30, 3);
  for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    for (const theory::Problem* p :
         {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&lg)}) {
      const Matrix start = spread_start(p->dim(), 1003);
      ChainEnsemble small(*p, options(a, 0.05, 4), Matrix(start.leftCols(8)));
      ChainEnsemble large(*p, options(a, 0.05, 4), start);
      small.advance(5, 1, {});
      large.advance(5, 2, {});
      EXPECT_EQ(small.state(), large.state().leftCols(8)) << theory::to_string(a);
    }
  }
}

// Statement: the same for the fused batch-1 logistic kernel (d = 10, the benchmark's shape, with
// the state in registers) and for d = 20 (state in memory): chain k is bit-identical for K = 8
// and K = 1003, and K = 1003 on 1 and 2 threads. Decision: exact equality after 5 rounds.
TEST(Engine, LogisticBatchOneChainsDoNotDependOnKOrThreads) {
  for (const int d : {10, 20}) {
    const auto lg = logistic(d, 3, 50, 1);
    for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold}) {
      const Matrix start = spread_start(d, 1003);
      ChainEnsemble small(lg, options(a, 0.05, 10), Matrix(start.leftCols(8)));
      ChainEnsemble one(lg, options(a, 0.05, 10), start);
      ChainEnsemble two(lg, options(a, 0.05, 10), start);
      small.advance(5, 1, {});
      one.advance(5, 1, {});
      two.advance(5, 2, {});
      EXPECT_EQ(small.state(), one.state().leftCols(8)) << d << " " << theory::to_string(a);
      EXPECT_EQ(one.state(), two.state()) << d << " " << theory::to_string(a);
    }
  }
}

// Statement: advance_recording on 2 threads (each thread carries its blocks through chunks of
// rounds without a barrier) gives the states of advance() round by round on 1 thread, and stops
// at a divergence where advance() does, with the same divergence(), final state and step count.
// Setting: FedAvg, Scaffold and FedRR on a quadratic and a logistic problem, K = 1003 (a partial
// last block), 40 rounds (chunks of 32 + 8); then a quadratic at γ = 2.5/L (no stationary law).
// Decision: exact equality of every recorded state and of the stop.
TEST(Engine, ChunkedRoundsOnTwoThreadsAreTheRoundByRoundRounds) {
  const auto q = quadratic(5, 3, 1.0);
  const auto lg = logistic(10, 3, 50, 1);
  auto record_all = [](ChainEnsemble& e, int rounds, int threads) {
    std::vector<Matrix> states;
    const int done = e.advance_recording(rounds, threads, [&](int round, const Matrix& x) {
      EXPECT_EQ(round, static_cast<int>(states.size()) + 1);
      states.push_back(x);
    });
    EXPECT_EQ(done, e.rounds_done());
    return states;
  };
  for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    for (const theory::Problem* p :
         {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&lg)}) {
      const Matrix start = spread_start(p->dim(), 1003);
      ChainEnsemble serial(*p, options(a, 0.05, 4), start);
      ChainEnsemble chunked(*p, options(a, 0.05, 4), start);
      std::vector<Matrix> expected;
      serial.advance(40, 1, [&](const ChainEnsemble& e) {
        expected.push_back(e.state());
        return true;
      });
      const std::vector<Matrix> got = record_all(chunked, 40, 2);
      ASSERT_EQ(got.size(), expected.size()) << theory::to_string(a);
      for (std::size_t t = 0; t < got.size(); ++t) {
        ASSERT_EQ(got[t], expected[t]) << theory::to_string(a) << " round " << t + 1;
      }
      EXPECT_EQ(chunked.state(), serial.state());
      EXPECT_EQ(chunked.chain_steps(), serial.chain_steps());
      if (a == Algorithm::scaffold) {
        EXPECT_EQ(chunked.stacked_state(), serial.stacked_state());
      }
    }
  }
  const auto unstable = quadratic(3, 1, 1.0);  // as in DivergenceIsDetectedWhen…: radius > 1
  const double gamma = 2.5 / unstable.smoothness();
  const Matrix start = spread_start(3, 203);
  ChainEnsemble serial(unstable, options(Algorithm::fedavg, gamma, 1), start);
  ChainEnsemble chunked(unstable, options(Algorithm::fedavg, gamma, 1), start);
  const int serial_done = serial.advance(500, 1, {});
  const std::vector<Matrix> got = record_all(chunked, 500, 2);
  ASSERT_TRUE(serial.divergence().diverged);
  ASSERT_TRUE(chunked.divergence().diverged);
  EXPECT_EQ(chunked.rounds_done(), serial_done);
  EXPECT_EQ(static_cast<int>(got.size()), serial_done - 1);  // no state from the bad round
  EXPECT_EQ(chunked.divergence().round, serial.divergence().round);
  EXPECT_EQ(chunked.divergence().chain, serial.divergence().chain);
  EXPECT_EQ(chunked.state(), serial.state());
  EXPECT_EQ(chunked.chain_steps(), serial.chain_steps());
  fmt::print("divergence after {} rounds (chunks of 32): {}\n", serial_done,
             chunked.divergence().describe());
}

// --- The batch streams of theory/base/rng.hpp ----------------------------------------------------

// Statement: normal i and index i of a batch stream do not depend on how many are drawn at once
// (the addressing contract that makes chain k independent of K and of the thread count).
// Decision: exact equality of the prefixes.
TEST(Engine, BatchStreamsDoNotDependOnTheBatchSize) {
  const BatchAddress a{99, Purpose::gradient_noise, 5, 3, 17};
  std::vector<double> many(1000), few(37);
  normals_into(a, many.data(), 1000);
  normals_into(a, few.data(), 37);
  EXPECT_TRUE(std::equal(few.begin(), few.end(), many.begin()));
  std::vector<std::uint32_t> more(100), less(10);
  indices_into(a, 50, more.data(), 100);
  indices_into(a, 50, less.data(), 10);
  EXPECT_TRUE(std::equal(less.begin(), less.end(), more.begin()));
}

// Statement: normals_into (ziggurat, 256 layers) yields i.i.d. N(0, 1) numbers, including the
// tail beyond r = 3.654 and the wedges (the slow path, ≈ 1.5 % of the candidates).
// Measurement: M = 2²¹ normals of one stream. Decision (family α = 1e-3, Bonferroni over 4):
// |z| ≤ z_{α/4} for the mean, the variance (Var Z² = 2), the fourth moment (Var Z⁴ = 96) and
// the tail frequency P(|Z| > r) = erfc(r/√2); and the Kolmogorov distance D ≤ t with
// P(√M·D > t) ≤ 2e^{−2t²} = α/4 (Dvoretzky–Kiefer–Wolfowitz–Massart, exact for all M).
TEST(Engine, BatchNormalsAreStandardNormal) {
  constexpr int kM = 1 << 21;
  constexpr double kAlpha = 1e-3;
  std::vector<double> z(kM);
  normals_into({2026, Purpose::test, 1, 2, 3}, z.data(), kM);
  double m1 = 0, m2 = 0, m4 = 0, tail = 0;
  const double r = 3.6541528853610088;
  for (const double v : z) {
    m1 += v, m2 += v * v, m4 += v * v * v * v;
    tail += std::abs(v) > r ? 1.0 : 0.0;
  }
  const double m = kM;
  m1 /= m, m2 /= m, m4 /= m, tail /= m;
  const double p_tail = std::erfc(r / std::sqrt(2.0));
  const double z_mean = m1 * std::sqrt(m);
  const double z_var = (m2 - 1.0) / std::sqrt(2.0 / m);
  const double z_m4 = (m4 - 3.0) / std::sqrt(96.0 / m);
  const double z_tail = (tail - p_tail) / std::sqrt(p_tail * (1 - p_tail) / m);
  std::sort(z.begin(), z.end());
  double d = 0;
  for (int i = 0; i < kM; ++i) {
    const double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    d = std::max({d, std::abs((i + 1) / m - cdf), std::abs(i / m - cdf)});
  }
  const double bound = z_quantile(kAlpha / 4);
  const double ks_bound = std::sqrt(std::log(2.0 / (kAlpha / 4)) / 2.0);
  fmt::print(
      "normals: z(mean) {:.2f}, z(var) {:.2f}, z(m4) {:.2f}, z(tail) {:.2f} (|z| <= {:.2f}); "
      "sqrt(M) D = {:.3f} (<= {:.3f})\n",
      z_mean, z_var, z_m4, z_tail, bound, std::sqrt(m) * d, ks_bound);
  EXPECT_LE(std::abs(z_mean), bound);
  EXPECT_LE(std::abs(z_var), bound);
  EXPECT_LE(std::abs(z_m4), bound);
  EXPECT_LE(std::abs(z_tail), bound);
  EXPECT_LE(std::sqrt(m) * d, ks_bound);
}

// SGD is FedAvg with H = 1 (THEORY G0): the two samplers are the same code path.
TEST(Engine, SgdIsFedAvgWithOneLocalStep) {
  const auto q = quadratic(3, 2, 1.0);
  ChainEnsemble sgd(q, options(Algorithm::sgd, 0.1, 1), Vector::Ones(3), 16);
  ChainEnsemble fedavg(q, options(Algorithm::fedavg, 0.1, 1), Vector::Ones(3), 16);
  sgd.advance(4, 1, {});
  fedavg.advance(4, 1, {});
  EXPECT_EQ(sgd.state(), fedavg.state());
}

// Synchronous coupling: two ensembles with the same seed and different starts see identical
// noise, so on a quadratic their difference evolves by the deterministic map x ↦ M x:
// x_t − x'_t = Mᵗ (x_0 − x'_0), up to round-off.
TEST(Engine, SameSeedDifferentStartsAreSynchronouslyCoupled) {
  const auto q = quadratic(3, 3, 1.0);
  const theory::StepSetting step{0.1, 3};
  const Matrix m = theory::fedavg_round_map(q, step).transition();
  ChainEnsemble a(q, options(Algorithm::fedavg, step.gamma, step.local_steps), Vector::Zero(3), 9);
  ChainEnsemble b(q, options(Algorithm::fedavg, step.gamma, step.local_steps), Vector::Ones(3), 9);
  const int rounds = 6;
  a.advance(rounds, 1, {});
  b.advance(rounds, 1, {});
  Vector expected = -Vector::Ones(3);
  for (int t = 0; t < rounds; ++t) expected = m * expected;
  // Round-off: |x| ≲ 5 here and each of rounds·N·H steps rounds at ~(2d + 3)ε relative; 64ε
  // per step covers it with room.
  const double tol = 64.0 * kEps * rounds * 3 * step.local_steps * 5.0;
  for (int k = 0; k < 9; ++k) {
    EXPECT_LE(((a.state().col(k) - b.state().col(k)) - expected).cwiseAbs().maxCoeff(), tol);
  }
}

// --- Exactness against THEORY (F5) -------------------------------------------------------------

// Statement (F5): with zero noise one FedAvg round is the affine map x ↦ M x + γ r.
// Measurement: one round of 16 chains from distinct starts vs theory::fedavg_round_map.
// Decision: max error ≤ round-off bound 8·H·(d + 2)·ε·scale, scale = max(‖x‖∞, ‖b‖∞, 1) ·
// (1 + γH‖A‖): each of the H steps rounds the d-term gradient sums and the update, and both
// sides (samplers and the matrix powers of the closed form) incur such errors.
TEST(Engine, FedAvgWithoutNoiseIsTheDeterministicRoundMap) {
  const int d = 6, n = 4, h = 5;
  const auto q = quadratic(d, n, 0.0);
  const theory::StepSetting step{0.15, h};
  const theory::AffineRoundMap map = theory::fedavg_round_map(q, step);
  const Matrix start = 3.0 * spread_start(d, 16);
  ChainEnsemble e(q, options(Algorithm::fedavg, step.gamma, h), start);
  e.advance(1);
  const Matrix expected = (map.transition() * start).colwise() + map.gamma * map.r;
  const double error = (e.state() - expected).cwiseAbs().maxCoeff();
  double scale = std::max(1.0, start.cwiseAbs().maxCoeff());
  for (int c = 0; c < n; ++c) scale = std::max(scale, q.client(c).optimum.cwiseAbs().maxCoeff());
  scale *= 1.0 + step.gamma * h * q.smoothness();
  const double tol = 8.0 * h * (d + 2) * kEps * scale;
  fmt::print("zero-noise round map: max error {:.3g}, round-off bound {:.3g}\n", error, tol);
  RecordProperty("max_error", fmt::format("{:.3g}", error));
  EXPECT_LE(error, tol);
}

// Shared statistical check: K samples (columns of `x`) against a known mean and covariance.
// Per-entry z-tests with Monte Carlo standard errors estimated from the sample:
//   mean_i: se = sd_i / √K;   cov_ij: se = sd over chains of (x_i − x̄_i)(x_j − x̄_j) / √K.
// False-alarm level α for the whole check, Bonferroni over the d + d(d+1)/2 comparisons.
void expect_moments(const Matrix& x, const Vector& mean, const Matrix& cov, double alpha,
                    const std::string& label) {
  const int d = static_cast<int>(x.rows());
  const auto k = static_cast<double>(x.cols());
  const int comparisons = d + d * (d + 1) / 2;
  const double z = z_quantile(alpha / comparisons);
  const Vector sample_mean = x.rowwise().mean();
  const Matrix centred = x.colwise() - sample_mean;
  double worst = 0;
  for (int i = 0; i < d; ++i) {
    const double sd = std::sqrt(centred.row(i).squaredNorm() / (k - 1));
    const double score = std::abs(sample_mean(i) - mean(i)) / (sd / std::sqrt(k));
    worst = std::max(worst, score);
    EXPECT_LE(score, z) << label << ": mean[" << i << "] " << sample_mean(i) << " vs " << mean(i);
    for (int j = 0; j <= i; ++j) {
      const Eigen::ArrayXd products = centred.row(i).array() * centred.row(j).array();
      const double s_ij = products.sum() / (k - 1);
      const double sd_p = std::sqrt((products - products.mean()).square().sum() / (k - 1));
      const double score_ij = std::abs(s_ij - cov(i, j)) / (sd_p / std::sqrt(k));
      worst = std::max(worst, score_ij);
      EXPECT_LE(score_ij, z) << label << ": cov(" << i << "," << j << ") " << s_ij << " vs "
                             << cov(i, j);
    }
  }
  fmt::print("{}: largest |z| = {:.2f} over {} comparisons (threshold {:.2f}, alpha = {})\n", label,
             worst, comparisons, z, alpha);
}

// Statement (F5): one round of FedAvg on a quadratic with additive noise N(0, S_c) maps x₀ to
// N(M x₀ + r, Q), Q = (γ²/N²) Σ_c Σ_h (I − γA_c)^h S_c (I − γA_c)^h.
// Setting: d = 3, N = 3, H = 4, γ = 0.2, K = 40000 chains from the same x₀.
// Decision: expect_moments with α = 1e-3 (fixed seed, so the outcome is reproducible).
TEST(Engine, OneQuadraticRoundHasTheExactMeanAndCovariance) {
  const auto q = quadratic(3, 3, 2.0);
  const theory::StepSetting step{0.2, 4};
  const theory::AffineRoundMap map = theory::fedavg_round_map(q, step);
  const Vector x0 = Vector::LinSpaced(3, -1.0, 2.0);
  ChainEnsemble e(q, options(Algorithm::fedavg, step.gamma, step.local_steps, 2024), x0, 40000);
  e.advance(1);
  expect_moments(e.state(), map.transition() * x0 + map.gamma * map.r, map.gamma * map.g, 1e-3,
                 "quadratic one round (F5)");
}

// Statement (§6): a logistic FedAvg round with H = 1 moves x₀ to x₀ − γ∇f(x₀) + noise with
// covariance (γ²/N²) Σ_c C_c(x₀), C_c = (1/B)·population covariance of the per-sample
// gradients (minibatch of B with replacement). Checks the index sampling and the gradient.
// Decision: expect_moments with α = 1e-3.
TEST(Engine, OneLogisticStepHasTheMinibatchMeanAndCovariance) {
  const auto lg = logistic(3, 2, 25, 2);
  const double gamma = 0.5;
  const Vector x0 = Vector::LinSpaced(3, 0.5, -0.5);
  ChainEnsemble e(lg, options(Algorithm::fedavg, gamma, 1, 77), x0, 40000);
  e.advance(1);
  const int n = lg.num_clients();
  const Vector mean = x0 - gamma * theory::average_gradient(lg, x0);
  Matrix cov = Matrix::Zero(3, 3);
  for (int c = 0; c < n; ++c) cov += lg.noise_covariance(c, x0);
  cov *= gamma * gamma / (n * n);
  expect_moments(e.state(), mean, cov, 1e-3, "logistic one step (§6)");
}

// --- The logistic kernel (estimators/samplers/kernels/logistic_kernel.hpp)
// ---------------------------------------

// Distance of `value` from `exact` in units of the spacing of doubles at |exact|.
double ulps_from(double value, double exact) {
  if (value == exact) return 0.0;
  const double spacing =
      std::nextafter(std::abs(exact), std::numeric_limits<double>::infinity()) - std::abs(exact);
  return std::abs(value - exact) / spacing;
}

// Statement: simd::exp(s) is within kExpUlps of std::exp(s) wherever e^s is a normal double,
// overflows to +inf for s > ln(DBL_MAX) ≈ 709.78 and is 0 for s < −745.2; the step weight
// γ/(1 + e^s) is within kWeightUlps of the same expression with std::exp, equals γ for s ≪ 0
// and 0 for s > kSaturation. Measurement: 2²⁰ arguments uniform on [−708, 709.7] and 2²⁰ on
// [−40, 40] (fixed test stream), plus the edge points. Decision: the maximum error.
// Bounds (error analysis, not measured-then-copied): the reduced argument r = s − n ln2 is exact
// to ≈ 2⁻⁶⁰ relative; the degree-13 Taylor remainder is < 6e-18; the Estrin evaluation of
// p(r) ≈ e^r ∈ [0.7, 1.42] commits ≤ 2 roundings that reach the result (the final fma, and the
// 1 + r head), the scaling by 2ⁿ is exact: ≤ 2.5 ulp, so kExpUlps = 3 (std::exp itself is
// within 1 ulp for glibc, which we do not count against the bound). The weight adds the sum
// 1 + e^s (0.5) and the division γ/(1 + e^s) (0.5) to e/(1+e) ≤ 1 times the exp error, and
// std::exp's own ≤ 1 ulp enters the reference the same way: ≤ 4.5 ulp, kWeightUlps = 5.
TEST(Engine, ExpAndTheLogisticWeightMatchTheLibraryExp) {
  constexpr double kExpUlps = 3.0;
  constexpr double kWeightUlps = 5.0;
  constexpr int kSamples = 1 << 20;
  constexpr int kL = simd::kPackLanes;
  Stream stream(4242, Purpose::test);
  double worst_exp = 0.0, worst_weight = 0.0;
  const double gamma = 0.3;
  for (int i = 0; i < kSamples / kL; ++i) {
    double s[kL], t[kL], e[kL], w[kL];
    for (int l = 0; l < kL; ++l) {
      s[l] = -708.0 + (709.7 + 708.0) * stream.uniform();
      t[l] = -40.0 + 80.0 * stream.uniform();
    }
    simd::store(e, simd::exp(simd::load(s)));
    simd::store(w, simd::logistic_weight(simd::load(t), gamma));
    for (int l = 0; l < kL; ++l) {
      worst_exp = std::max(worst_exp, ulps_from(e[l], std::exp(s[l])));
      worst_weight = std::max(worst_weight, ulps_from(w[l], gamma / (1.0 + std::exp(t[l]))));
    }
  }
  fmt::print("kernel exp: max error {:.2f} ulp (bound {}), weight: {:.2f} ulp (bound {})\n",
             worst_exp, kExpUlps, worst_weight, kWeightUlps);
  EXPECT_LE(worst_exp, kExpUlps);
  EXPECT_LE(worst_weight, kWeightUlps);
  const double inf = std::numeric_limits<double>::infinity();
  double edge[kL] = {709.79, 710.0, 1e300, inf, -745.2, -746.0, -1e300, -inf};
  double e[kL], w[kL];
  simd::store(e, simd::exp(simd::load(edge)));
  simd::store(w, simd::logistic_weight(simd::load(edge), gamma));
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(e[l], inf) << edge[l];
    EXPECT_EQ(w[l], 0.0) << edge[l];
  }
  for (int l = 4; l < kL; ++l) {
    EXPECT_EQ(e[l], 0.0) << edge[l];
    EXPECT_EQ(w[l], gamma) << edge[l];
  }
}

// Statement: indices_across_chains<8> (one vectorised Philox pass for 8 chains) is the
// lane-interleaved output of indices_into on each chain's own stream, whatever the count.
// Decision: exact equality.
TEST(Engine, IndicesAcrossChainsAreThePerChainStreams) {
  constexpr int kL = 8;
  for (const int n : {1, 4, 10, 16, 17, 45}) {
    const BatchAddress a{77, Purpose::gradient_noise, 1000, 6, 31};
    std::vector<std::uint32_t> lanes(static_cast<std::size_t>(n) * kL), one(n);
    indices_across_chains<kL>(a, 50, lanes.data(), n);
    for (int l = 0; l < kL; ++l) {
      BatchAddress chain = a;
      chain.chain = a.chain + static_cast<std::uint32_t>(l);
      indices_into(chain, 50, one.data(), n);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(lanes[static_cast<std::size_t>(i) * kL + l], one[i]) << n << " " << l << " " << i;
      }
    }
  }
}

// Statement: the fused kernel (row transpose, dot, weight, y ← (1 − γλ)y + Σ c ã − γξ) performs
// the logistic local steps y ← y − γ(mean_b φ'(ã_bᵀy) ã_b + λy + ξ) of THEORY §6.
// Setting: random tables and states, d ∈ {1, 3, 4, 10, 16} (registers) and {17, 23} (memory),
// B ∈ {1, 3}, with and without a Scaffold correction ξ, H = 7 steps of γ = 0.2, λ = 0.1.
// Prediction: a scalar reference loop with std::exp and long double accumulation.
// Decision: max |kernel − reference| ≤ 64·H·(d + 8)·ε·scale, scale = max(1, max|y|): each step
// rounds a dot of d terms (≤ d·ε relative to Σ|ã||y|), the weight (≤ 6 ulp) and the update
// (2 roundings), and the step map's Lipschitz constant 1 − γλ + γ|ã|²/4 < 2 for these sizes
// lets the errors add up over H steps; a wrong formula gives errors of order γ ≈ 0.2.
TEST(Engine, FusedLogisticKernelMatchesTheScalarSteps) {
  constexpr int kL = simd::kPackLanes;
  constexpr int kSteps = 7;
  constexpr int kRows = 13;
  const double gamma = 0.2, l2 = 0.1;
  Stream stream(515, Purpose::test);
  double worst_ratio = 0.0;
  for (const int d : {1, 3, 4, 10, 16, 17, 23}) {
    for (const int batch : {1, 3}) {
      for (const bool scaffold : {false, true}) {
        std::vector<double> table(static_cast<std::size_t>(kRows) * d + simd::kRowPadding, 0.0);
        for (int i = 0; i < kRows * d; ++i) table[i] = stream.normal() / std::sqrt(d);
        std::vector<std::uint32_t> offsets(static_cast<std::size_t>(kSteps) * batch * kL);
        for (auto& o : offsets) o = static_cast<std::uint32_t>(stream.below(kRows) * d);
        std::vector<double> y(static_cast<std::size_t>(d) * kL), xi(y.size());
        for (auto& v : y) v = 2.0 * stream.normal();
        for (auto& v : xi) v = scaffold ? stream.normal() : 0.0;
        std::vector<double> kernel = y;
        simd::LogisticBlock block;
        block.table = table.data();
        block.offsets = offsets.data();
        block.dim = d;
        block.steps = kSteps;
        block.batch = batch;
        block.gamma = gamma;
        block.l2 = l2;
        simd::logistic_local_steps(block, kernel.data(), scaffold ? xi.data() : nullptr);
        double error = 0.0, scale = 1.0;
        for (int l = 0; l < kL; ++l) {
          std::vector<long double> x(d), g(d);
          for (int k = 0; k < d; ++k) x[k] = y[k * kL + l];
          for (int h = 0; h < kSteps; ++h) {
            for (int k = 0; k < d; ++k) g[k] = l2 * x[k] + xi[k * kL + l];
            for (int b = 0; b < batch; ++b) {
              const double* row = table.data() + offsets[(h * batch + b) * kL + l];
              long double s = 0;
              for (int k = 0; k < d; ++k) s += row[k] * x[k];
              const long double phi = -1.0L / (1.0L + std::exp(s));  // φ'(s), signed rows
              for (int k = 0; k < d; ++k) g[k] += phi * row[k] / batch;
            }
            for (int k = 0; k < d; ++k) x[k] -= gamma * g[k];
          }
          for (int k = 0; k < d; ++k) {
            error = std::max(error, static_cast<double>(std::abs(kernel[k * kL + l] - x[k])));
            scale = std::max(scale, static_cast<double>(std::abs(x[k])));
          }
        }
        const double tolerance = 64.0 * kSteps * (d + 8) * kEps * scale;
        worst_ratio = std::max(worst_ratio, error / tolerance);
        EXPECT_LE(error, tolerance) << "d = " << d << ", B = " << batch << ", ξ " << scaffold;
      }
    }
  }
  fmt::print("fused logistic kernel vs scalar steps: max error / tolerance = {:.3g}\n",
             worst_ratio);
}

// Statement: two clients' steps interleaved (logistic_local_steps_pair, what the sampler calls
// for clients 2i and 2i + 1) are bit-identical to two separate calls: per chain the operations
// and their order do not depend on the pairing. Setting: d = 1 … 12 (pairs run interleaved up to
// d = 10, one after the other above), B ∈ {1, 2}, with and without ξ, two different tables and
// index sets, H = 7. Decision: exact equality of both blocks' states.
TEST(Engine, InterleavedClientPairIsTwoSeparateCalls) {
  constexpr int kL = simd::kPackLanes;
  constexpr int kSteps = 7;
  constexpr int kRows = 11;
  Stream stream(516, Purpose::test);
  for (int d = 1; d <= 12; ++d) {
    for (const int batch : {1, 2}) {
      for (const bool scaffold : {false, true}) {
        std::vector<double> tables[2];
        std::vector<std::uint32_t> offsets[2];
        std::vector<double> y[2], xi[2];
        simd::LogisticBlock block[2];
        for (int m = 0; m < 2; ++m) {
          tables[m].assign(static_cast<std::size_t>(kRows) * d + simd::kRowPadding, 0.0);
          for (int i = 0; i < kRows * d; ++i) tables[m][i] = stream.normal() / std::sqrt(d);
          offsets[m].resize(static_cast<std::size_t>(kSteps) * batch * kL);
          for (auto& o : offsets[m]) o = static_cast<std::uint32_t>(stream.below(kRows) * d);
          y[m].resize(static_cast<std::size_t>(d) * kL);
          xi[m].resize(y[m].size());
          for (auto& v : y[m]) v = 2.0 * stream.normal();
          for (auto& v : xi[m]) v = scaffold ? stream.normal() : 0.0;
          block[m].table = tables[m].data();
          block[m].offsets = offsets[m].data();
          block[m].dim = d;
          block[m].steps = kSteps;
          block[m].batch = batch;
          block[m].gamma = 0.2;
          block[m].l2 = 0.1;
        }
        std::vector<double> separate[2] = {y[0], y[1]}, paired[2] = {y[0], y[1]};
        for (int m = 0; m < 2; ++m) {
          simd::logistic_local_steps(block[m], separate[m].data(),
                                     scaffold ? xi[m].data() : nullptr);
        }
        simd::logistic_local_steps_pair(block[0], paired[0].data(),
                                        scaffold ? xi[0].data() : nullptr, block[1],
                                        paired[1].data(), scaffold ? xi[1].data() : nullptr);
        EXPECT_EQ(paired[0], separate[0]) << "d " << d << " B " << batch << " xi " << scaffold;
        EXPECT_EQ(paired[1], separate[1]) << "d " << d << " B " << batch << " xi " << scaffold;
      }
    }
  }
}

// --- Scaffold and FedRR -------------------------------------------------------------------------

double max_abs_sum_of_control_variates(const ChainEnsemble& e) {
  Matrix sum = Matrix::Zero(e.dim(), e.chains());
  for (int c = 0; c < e.num_clients(); ++c) sum += scaffold_correction(e, c);
  return sum.cwiseAbs().maxCoeff();
}

double max_abs_control_variate(const ChainEnsemble& e) {
  double m = 0;
  for (int c = 0; c < e.num_clients(); ++c)
    m = std::max(m, scaffold_correction(e, c).cwiseAbs().maxCoeff());
  return m;
}

// Statement (S0): the update preserves Σ_c ξ_c = 0 when the ξ_c start at 0.
// Decision: after T = 50 rounds, ‖Σ_c ξ_c‖∞ ≤ 8·N·T·ε·max|ξ| (each round adds a few roundings
// of size ε·max|ξ| per client to the conserved sum). The planted server bug must break it.
TEST(Engine, ScaffoldPreservesTheSumOfControlVariates) {
  const int n = 4, rounds = 50;
  const auto q = quadratic(3, n, 1.0);
  ChainEnsemble e(q, options(Algorithm::scaffold, 0.1, 3), Vector::Zero(3), 24);
  e.advance(rounds, 2, {});
  const double tol = 8.0 * n * rounds * kEps * max_abs_control_variate(e);
  const double sum = max_abs_sum_of_control_variates(e);
  fmt::print("Scaffold: max |sum_c xi_c| = {:.3g} (bound {:.3g}), max |xi| = {:.3g}\n", sum, tol,
             max_abs_control_variate(e));
  EXPECT_LE(sum, tol);
  EXPECT_GT(max_abs_control_variate(e), 0.1);  // the invariant is not trivially satisfied
  // The stacked state has the layout of theory::scaffold_exact: (x, ξ_1, …, ξ_N).
  const Matrix z = e.stacked_state();
  EXPECT_EQ(z.topRows(3), e.state());
  EXPECT_EQ(z.middleRows(3 * (1 + 2), 3), scaffold_correction(e, 2));
}

// FedRR (R0): χ = 2 x^{(γ)} − x^{(2γ)}; with shared noise the runs are FedAvg at γ and 2γ with
// the same seed, with independent noise the 2γ run uses other streams.
TEST(Engine, FedRRCombinesTwoFedAvgRuns) {
  const auto q = quadratic(3, 2, 1.0);
  SamplerOptions shared = options(Algorithm::fedrr, 0.1, 2);
  shared.coupling = theory::NoiseCoupling::shared;
  ChainEnsemble rr_shared(q, shared, Vector::Ones(3), 10);
  ChainEnsemble rr_indep(q, options(Algorithm::fedrr, 0.1, 2), Vector::Ones(3), 10);
  ChainEnsemble at_gamma(q, options(Algorithm::fedavg, 0.1, 2), Vector::Ones(3), 10);
  ChainEnsemble at_2gamma(q, options(Algorithm::fedavg, 0.2, 2), Vector::Ones(3), 10);
  for (ChainEnsemble* e : {&rr_shared, &rr_indep, &at_gamma, &at_2gamma}) e->advance(3, 1, {});
  EXPECT_EQ(rr_shared.run(0), at_gamma.state());
  EXPECT_EQ(rr_shared.run(1), at_2gamma.state());
  EXPECT_EQ(rr_shared.state(), Matrix(2.0 * at_gamma.state() - at_2gamma.state()));
  EXPECT_EQ(rr_indep.run(0), at_gamma.state());
  EXPECT_GT((rr_indep.run(1) - at_2gamma.state()).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_EQ(rr_indep.chain_steps(), 2 * at_gamma.chain_steps());
}

// --- Divergence ---------------------------------------------------------------------------------

// Statement (F5): no stationary law when the spectral radius of M is ≥ 1 (here H = 1 and
// γ = 2.5/λ_max(A), so |1 − γλ_max| = 1.5). simulate() must stop and report where, with no
// statistics; at γ = 0.5/L the same run must not be flagged.
TEST(Engine, DivergenceIsDetectedWhenThereIsNoStationaryLaw) {
  const auto q = quadratic(3, 1, 1.0);
  const double l = q.smoothness();
  const double radius =
      Eigen::EigenSolver<Matrix>(theory::fedavg_round_map(q, {2.5 / l, 1}).transition())
          .eigenvalues()
          .cwiseAbs()
          .maxCoeff();
  ASSERT_GT(radius, 1.0) << "setting must have no stationary law";
  SimulationSpec spec;
  spec.step = {2.5 / l, 1};
  spec.chains = 20;
  spec.rounds = 500;
  spec.burn_in = 10;
  const SimulationResult bad = simulate(q, spec);
  fmt::print("divergence: {}\n", bad.divergence);
  EXPECT_TRUE(bad.diverged);
  EXPECT_GE(bad.divergence_round, 1);
  EXPECT_LT(bad.divergence_round, spec.rounds);
  EXPECT_GE(bad.divergence_chain, 0);
  EXPECT_EQ(bad.moments.samples, 0);
  EXPECT_FALSE(bad.divergence.empty());

  spec.step = {0.5 / l, 1};
  const SimulationResult good = simulate(q, spec);
  EXPECT_FALSE(good.diverged) << good.divergence;
  EXPECT_TRUE(good.moments.mean.allFinite());
}

TEST(Engine, SimulateRejectsBadSpecsNamingTheFlag) {
  const auto q = quadratic(2, 2, 1.0);
  auto message = [&](SimulationSpec s) -> std::string {
    try {
      simulate(q, s);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  SimulationSpec ok;  // 4 recorded rounds: the fewest for which split-R̂ is defined
  ok.step = {0.1, 2};
  ok.rounds = 5;
  ok.burn_in = 1;
  EXPECT_EQ(message(ok), "no error");
  SimulationSpec s = ok;
  s.chains = 0;
  EXPECT_NE(message(s).find("--chains"), std::string::npos);
  s = ok;
  s.rounds = 1;
  EXPECT_NE(message(s).find("--rounds"), std::string::npos);
  s = ok;
  s.burn_in = -1;
  EXPECT_NE(message(s).find("--burn-in"), std::string::npos);
  s = ok;
  s.threads = -1;
  EXPECT_NE(message(s).find("--threads"), std::string::npos);
  s = ok;
  s.step.gamma = 0;
  EXPECT_NE(message(s).find("--gamma"), std::string::npos);
  s = ok;
  s.step.local_steps = 0;
  EXPECT_NE(message(s).find("--local-steps"), std::string::npos);
  // Statistics that would be 0/0 (printed as null): 3 recorded rounds (split-R̂ needs two
  // halves of ≥ 2), or a single batch mean (one chain, one batch: no MCSE, no ESS).
  s = ok;
  s.rounds = 4;
  EXPECT_NE(message(s).find("--rounds"), std::string::npos);
  s = ok;
  s.chains = 1;
  s.batch_rounds = 4;
  EXPECT_NE(message(s).find("--batch-rounds"), std::string::npos);
  s.chains = 2;
  EXPECT_EQ(message(s), "no error");
}

// --- Rounds: registry and brute-force references ------------------------------------------------

// Every algorithm's round is registered under theory::to_string(algorithm); an unknown name is an
// input error naming --algo; an injected round replaces the registered one.
TEST(Engine, RoundsAreRegisteredByAlgorithmName) {
  for (const Algorithm a :
       {Algorithm::sgd, Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    EXPECT_NE(RoundRegistry::find(theory::to_string(a)), nullptr) << theory::to_string(a);
  }
  const std::vector<std::string> names = RoundRegistry::names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "scaffold"), names.end());
  EXPECT_EQ(RoundRegistry::find("no-such-algorithm"), nullptr);
  try {
    RoundRegistry::get("no-such-algorithm");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--algo"), std::string::npos) << e.what();
  }
  const auto q = quadratic(3, 3, 1.0);
  SamplerOptions injected = options(Algorithm::scaffold, 0.1, 3);
  injected.round = std::make_shared<ScaffoldRound<StandardScaffold>>();
  ChainEnsemble a(q, injected, Vector::Zero(3), 11);
  ChainEnsemble b(q, options(Algorithm::scaffold, 0.1, 3), Vector::Zero(3), 11);
  a.advance(3, 1, {});
  b.advance(3, 1, {});
  EXPECT_EQ(a.stacked_state(), b.stacked_state());
  EXPECT_EQ(&a.round(), injected.round.get());
}

// A brute-force FedAvg or Scaffold (THEORY F0, S0) written from the formulas: chain by chain,
// client by client, no blocks of chains and no client pairs. The local steps are the problem
// kind's kernel run on lane 0 of a block with one active chain, address (seed, gradient_noise,
// chain, client, round), so each chain draws its own noise as in the engine.
struct ReferenceChains {
  Matrix x;
  Matrix server;                  // Scaffold: c
  std::vector<Matrix> client_cv;  // Scaffold: c_i
};

ReferenceChains reference_rounds(const theory::Problem& p, const SamplerOptions& o,
                                 const Matrix& start, int rounds) {
  const bool scaffold = o.algorithm == Algorithm::scaffold;
  const int d = p.dim(), n = p.num_clients();
  const auto k = start.cols();
  const auto sampler = make_local_sampler(p);
  KernelWorkspace ws;
  std::vector<double> y(static_cast<std::size_t>(d) * kLanes, 0.0), xi(y.size(), 0.0);
  ReferenceChains r{start, Matrix::Zero(d, k), std::vector<Matrix>(n, Matrix::Zero(d, k))};
  const double gamma = o.step.gamma;
  const int h = o.step.local_steps;
  const double inv = 1.0 / (h * gamma);
  for (int t = 0; t < rounds; ++t) {
    for (Eigen::Index chain = 0; chain < k; ++chain) {
      Vector total = Vector::Zero(d), delta = Vector::Zero(d);
      for (int c = 0; c < n; ++c) {
        Matrix& cv = r.client_cv[c];
        for (int i = 0; i < d; ++i) {
          y[i * kLanes] = r.x(i, chain);
          xi[i * kLanes] = r.server(i, chain) - cv(i, chain);  // ξ_c = c − c_c
        }
        const BatchAddress address{o.seed, Purpose::gradient_noise,
                                   static_cast<std::uint32_t>(chain), static_cast<std::uint32_t>(c),
                                   static_cast<std::uint32_t>(t)};
        sampler->local_steps(c, address, 1, gamma, h, y.data(), scaffold ? xi.data() : nullptr, ws);
        for (int i = 0; i < d; ++i) {
          total(i) += y[i * kLanes];
          // c_c⁺ = c_c − c + (x − y_c)/(Hγ); the server sums c_c⁺ − c_c.
          const double updated =
              cv(i, chain) - r.server(i, chain) + (r.x(i, chain) - y[i * kLanes]) * inv;
          delta(i) += updated - cv(i, chain);
          cv(i, chain) = updated;
        }
      }
      for (int i = 0; i < d; ++i) r.x(i, chain) = total(i) / n;
      if (scaffold) {
        for (int i = 0; i < d; ++i) r.server(i, chain) += delta(i) / n;
      }
    }
  }
  return r;
}

// Statement: the engine's FedAvg and Scaffold rounds (blocks of chains, client pairs, threads)
// are the brute-force rounds. Setting: quadratic (d = 4) and logistic (d = 3, B = 2) problems
// with N = 3 clients (a pair and a lone client), K = 13 chains (a padded block), H = 3, 4 rounds,
// 2 threads. Decision: exact equality of x and, for Scaffold, of every ξ_c = c − c_c.
TEST(Engine, RoundsAreTheBruteForceReference) {
  const auto q = quadratic(4, 3, 1.0);
  const auto lg = logistic(3, 3, 30, 2);
  const int chains = 13, rounds = 4;
  for (const theory::Problem* p :
       {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&lg)}) {
    for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold}) {
      SCOPED_TRACE(theory::to_string(p->kind()) + " " + theory::to_string(a));
      const SamplerOptions o = options(a, 0.05, 3);
      const Matrix start = spread_start(p->dim(), chains);
      ChainEnsemble e(*p, o, start);
      e.advance(rounds, 2, {});
      const ReferenceChains r = reference_rounds(*p, o, start, rounds);
      EXPECT_EQ(e.state(), r.x);
      if (a == Algorithm::scaffold) {
        for (int c = 0; c < p->num_clients(); ++c) {
          EXPECT_EQ(scaffold_correction(e, c), Matrix(r.server - r.client_cv[c])) << c;
        }
      }
    }
  }
}

// --- Planted Scaffold bugs ----------------------------------------------------------------------

// Each bug that real frameworks shipped (verify/planted), injected as the Scaffold round, must
// change the trajectory (same seed, same start). Decision: after 3 rounds the iterate differs
// from correct Scaffold by far more than round-off.
TEST(Engine, PlantedScaffoldBugsChangeTheTrajectory) {
  const auto q = quadratic(3, 3, 1.0);
  auto run = [&](std::shared_ptr<const RoundSampler> round) {
    SamplerOptions o = options(Algorithm::scaffold, 0.1, 3);
    o.round = std::move(round);
    ChainEnsemble e(q, o, Vector::Zero(3), 8);
    e.advance(3, 1, {});
    return e;
  };
  const ChainEnsemble correct = run(nullptr);
  for (const verify::planted::ScaffoldBug bug : verify::planted::scaffold_bugs()) {
    const ChainEnsemble buggy = run(verify::planted::scaffold_round_with(bug));
    const double change = (buggy.state() - correct.state()).cwiseAbs().maxCoeff();
    fmt::print("planted bug {}: max change of x after 3 rounds {:.3g}\n",
               verify::planted::to_string(bug), change);
    EXPECT_GT(change, 1e-3);
  }
  // The server bug also breaks the conserved sum Σ_c ξ_c.
  EXPECT_GT(max_abs_sum_of_control_variates(run(verify::planted::scaffold_round_with(
                verify::planted::ScaffoldBug::server_adds_new_variate))),
            1e-3);
}

}  // namespace
}  // namespace fedverify::estimators
