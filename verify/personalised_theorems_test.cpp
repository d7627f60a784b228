// Theorems of THEORY §7 (personalised FL: L2GD, L2SGD+, compressed L2GD), checked on the
// samplers of estimators/samplers/l2gd.hpp against the closed forms of theory/algorithms/l2gd.hpp
// and against the claims of the report.
//
// Problems: small heterogeneous quadratics (exact mean-square dynamics available) and a small
// logistic regression (simulated), built by verify/claims/problems/personalised_problems.hpp. The
// (P3) bound and the (P4) communication count are claims of the report
// (verify/claims/personalised/); the tests of those run the claims. All randomness from
// fixed seeds through estimators::Stream.
//
// The samplers and the closed forms are sibling layers, so their agreement is checked here. So
// are the unit tests that build their problems with the claims layer's personalised_problems.hpp,
// which no test beside a lower layer may include: x(λ)'s optimality condition
// (theory/problems/personalised_objective.hpp), the exact recursion against enumeration
// (theory/algorithms/l2gd.hpp), and the reproducibility and plumbing of the samplers
// (estimators/samplers/l2gd.hpp).

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "estimators/samplers/compressors.hpp"
#include "estimators/samplers/l2gd.hpp"
#include "estimators/statistics/regression.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/personalised.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/problems/personalised_problems.hpp"

namespace fedverify {
namespace {

using claims::make_logistic;
using claims::make_quadratic;
using estimators::Purpose;
using estimators::Stream;
using theory::CompressorKind;
using theory::CompressorSpec;
using theory::L2gdSetting;

// Two-sided standard-normal quantile for a family of `tests` checks at false-alarm level α
// (Bonferroni).
double z_two_sided(double alpha, int tests) {
  return boost::math::quantile(boost::math::normal(), 1 - alpha / (2.0 * tests));
}
double z_one_sided(double alpha, int tests) {
  return boost::math::quantile(boost::math::normal(), 1 - alpha / tests);
}

constexpr double kFamilyAlpha = 1e-3;  // false-alarm level of every statistical test below

// Runs the catalogue claim `id` (verify/claims/personalised/<claim>.cpp: its card states the
// theorem, setting and decision) on its quick grid, prints its rows and expects every row to
// hold, as verify/claims_slowtest.cpp does for the whole catalogue.
void expect_claim_holds(const std::string& id) {
  const auto& all = claims::catalogue();
  const auto claim =
      std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.id == id; });
  ASSERT_NE(claim, all.end()) << id << " is not in the catalogue";
  claims::Context quick;
  quick.options.quick = true;
  const claims::ClaimResult result = claim->run(quick);
  fmt::print("{} ({:.1f} s)\n  rule: {}\n", claim->id, result.seconds, claim->card.decision_rule);
  std::vector<std::string> failed;
  for (const auto& row : result.rows) {
    fmt::print("  {} {}: {} | {}\n", row.passed ? "holds" : "FAILS", row.setting, row.predicted,
               row.measured);
    if (!row.passed) failed.push_back(row.setting);
  }
  fmt::print("  finding: {}\n", result.note);
  EXPECT_TRUE(failed.empty()) << failed.size() << " rows fail, first: " << failed.front();
  EXPECT_FALSE(result.rows.empty()) << "a claim must measure something";
}

// Forwards to another problem but hides that it is quadratic, to force the Newton path.
class Opaque final : public theory::Problem {
 public:
  explicit Opaque(const theory::Problem& p) : p_(p) {}
  theory::ProblemKind kind() const override { return theory::ProblemKind::logistic; }
  int dim() const override { return p_.dim(); }
  int num_clients() const override { return p_.num_clients(); }
  double value(int c, const Vector& x) const override { return p_.value(c, x); }
  Vector gradient(int c, const Vector& x) const override { return p_.gradient(c, x); }
  Matrix hessian(int c, const Vector& x) const override { return p_.hessian(c, x); }
  Vector third_derivative(int c, const Vector& x, const Matrix& m) const override {
    return p_.third_derivative(c, x, m);
  }
  Matrix noise_covariance(int c, const Vector& x) const override {
    return p_.noise_covariance(c, x);
  }
  double strong_convexity() const override { return p_.strong_convexity(); }
  double smoothness() const override { return p_.smoothness(); }

 private:
  const theory::Problem& p_;
};

// =============================================================================================
// (c) x(λ), its optimality condition and its limits.
// =============================================================================================

// Statement: x(λ) satisfies x_i = x̄ − (1/λ)∇f_i(x_i), Σ_i ∇f_i(x_i) = 0. THEORY (P1) Measurement:
// the residual n∇F(x(λ)) for the closed form (quadratic) and for Newton (quadratic hidden behind
// Opaque, and logistic), and closed form vs Newton. Decision: residual ≤ 1e-11·(‖A‖‖b‖ scale):
// round-off of a linear solve of condition ≤ 1e3.
TEST(L2gdOptimum, SatisfiesOptimalityConditionQuadraticAndLogistic) {
  const auto q = make_quadratic(4, 3, 0.1, 1.0, 11);
  const auto lg = make_logistic(3, 20, 2, 0.1, 12);
  constexpr double kRoundOff = 1e-11;  // cond(Hessian) ≤ (L + λ)/μ ≤ 1e3, times ε·√(nd) margin
  for (double lambda : {0.01, 0.3, 1.0, 30.0}) {
    const Matrix closed = theory::personalised_optimum(q, lambda);
    const Matrix newton = theory::personalised_optimum(Opaque(q), lambda);
    const double res_q = theory::personalised_gradient(q, lambda, closed).norm();
    const Matrix xl = theory::personalised_optimum(lg, lambda);
    const double res_l = theory::personalised_gradient(lg, lambda, xl).norm();
    // The per-client form of the condition, and Σ_i ∇f_i = 0.
    const Vector mean = theory::client_average(closed);
    double per_client = 0;
    Vector sum = Vector::Zero(q.dim());
    for (int i = 0; i < q.num_clients(); ++i) {
      per_client = std::max(
          per_client, (closed.col(i) - (mean - q.gradient(i, closed.col(i)) / lambda)).norm());
      sum += q.gradient(i, closed.col(i));
    }
    fmt::print(
        "lambda {:6.2f}: |n grad F| quad {:.2e}, logistic {:.2e}; "
        "|closed - Newton| {:.2e};"
        " per-client residual {:.2e}, |sum grad f_i| {:.2e}\n",
        lambda, res_q, res_l, (closed - newton).norm(), per_client, sum.norm());
    EXPECT_LE(res_q, kRoundOff * 10);
    EXPECT_LE(res_l, kRoundOff);
    EXPECT_LE((closed - newton).norm(),
              kRoundOff * 100);  // Newton stops at 1e-13 residual/μ
    EXPECT_LE(per_client, kRoundOff * 10 / lambda);
    EXPECT_LE(sum.norm(), kRoundOff * 10);
  }
}

// THEORY (P1): λ → 0 gives the local optima, λ → ∞ the global x*, both approached linearly (claim
// personalised.optimum-limits: log–log slopes within 0.05 of 1, deterministic).
TEST(L2gdOptimum, LimitsAreLocalAndGlobalOptima) {
  expect_claim_holds("personalised.optimum-limits");
}

// =============================================================================================
// Exact mean-square recursion: checked against two independent computations.
// =============================================================================================

// Brute force: enumerate all 2^k coin sequences for k ≤ 10, apply the L2GD maps literally (client
// by client, as in (P2), not through the nd×nd matrices) and average ‖x^k − x(λ)‖² with the
// sequence probabilities. Decision: relative difference ≤ 1e-12 (sums of ≤ 2^10 products of ≤ 10
// maps, each exact to a few ulps).
TEST(L2gdExact, RecursionMatchesEnumerationOfAllCoinSequences) {
  const auto q = make_quadratic(3, 2, 0.2, 1.0, 15);
  const L2gdSetting s{0.5, 0.3, 0.8};
  const Matrix xl = theory::personalised_optimum(q, s.lambda);
  const int n = q.num_clients();
  const auto traj = theory::l2gd_mean_square_trajectory(q, s, Matrix::Zero(2, n), 10);
  for (int k = 0; k <= 10; ++k) {
    double expected = 0;
    for (int seq = 0; seq < (1 << k); ++seq) {
      Matrix x = Matrix::Zero(2, n);
      double prob = 1;
      for (int j = 0; j < k; ++j) {
        if ((seq >> j) & 1) {
          prob *= s.p;
          const Vector mean = x.rowwise().mean();
          const double t = s.alpha * s.lambda / (n * s.p);
          for (int i = 0; i < n; ++i) x.col(i) = (1 - t) * x.col(i) + t * mean;
        } else {
          prob *= 1 - s.p;
          for (int i = 0; i < n; ++i) {
            x.col(i) -= s.alpha / (n * (1 - s.p)) * q.gradient(i, x.col(i));
          }
        }
      }
      expected += prob * (x - xl).squaredNorm();
    }
    EXPECT_NEAR(traj[k], expected, 1e-12 * expected) << "k = " << k;
  }
}

// Monte Carlo of the random iteration (estimators::simulate_l2gd, K = 4000 chains) against the
// exact recursion, at every k ≤ 60 and for the mean of x^60. Decision: |measured − exact| ≤ z·SE, z
// two-sided with Bonferroni over all 61 + nd comparisons at α = 1e-3.
TEST(L2gdExact, RecursionMatchesMonteCarloOfTheRandomIteration) {
  const auto q = make_quadratic(3, 2, 0.2, 1.0, 16);
  const estimators::L2gdSimulationSpec spec{
      .setting = {0.5, 0.3, 0.8}, .chains = 4000, .iterations = 60, .seed = 2024};
  const auto sim = estimators::simulate_l2gd(q, spec);
  theory::L2gdMeanSquare exact(q, spec.setting, Matrix::Zero(2, 3));
  const int tests = 61 + 6;
  const double z = z_two_sided(kFamilyAlpha, tests);
  double worst = 0;
  for (int k = 0; k <= 60; ++k) {
    if (k > 0) {
      const double dev = (sim.mse_mean[k] - exact.mean_square_error()) / sim.mse_se[k];
      worst = std::max(worst, std::abs(dev));
      EXPECT_LE(std::abs(dev), z) << "k = " << k;
    }
    if (k < 60) exact.step();
  }
  const Matrix dev_mean = ((sim.final_mean - exact.mean()).array() / sim.final_se.array()).matrix();
  fmt::print(
      "max |z| of E|x^k - x(l)|^2 over k <= 60: {:.2f}; max |z| of E "
      "x^60: {:.2f}; "
      "threshold {:.2f}\n",
      worst, dev_mean.cwiseAbs().maxCoeff(), z);
  EXPECT_LE(dev_mean.cwiseAbs().maxCoeff(), z);
}

// Same seed ⇒ bit-identical results whatever the number of threads: runs `simulate` (a sampler
// of estimators/samplers/l2gd.hpp) on 1 and on 2 threads and compares every statistic.
template <class Spec, class Simulate>
void expect_thread_count_invariant(const Simulate& simulate, const theory::Problem& problem,
                                   Spec spec) {
  spec.threads = 1;
  const estimators::L2gdSimulationResult one = simulate(problem, spec);
  spec.threads = 2;
  const estimators::L2gdSimulationResult two = simulate(problem, spec);
  EXPECT_EQ(one.mse_mean, two.mse_mean);
  EXPECT_EQ(one.mse_se, two.mse_se);
  EXPECT_EQ(one.final_mean, two.final_mean);
  EXPECT_EQ(one.rounds_mean, two.rounds_mean);
  EXPECT_EQ(one.bits_mean, two.bits_mean);
}

TEST(L2gdSampler, SameSeedGivesBitIdenticalResultsForAnyThreadCount) {
  expect_thread_count_invariant(
      estimators::simulate_l2gd, make_logistic(3, 20, 2, 0.1, 17),
      estimators::L2gdSimulationSpec{.setting = {0.3, 0.4, 0.5},
                                     .chains = 64,
                                     .iterations = 50,
                                     .uplink = {CompressorKind::dithering, 2},
                                     .downlink = {CompressorKind::natural, 0}});
}

// =============================================================================================
// (a) The (P3) bound and (b) the communication count (P4): claims of the report.
// =============================================================================================

// THEORY (P3), for α ≤ α_max: exactly on quadratics (k ≤ 3000, and the bound must fail at 16α_max)
// and by simulation on logistic regression (one-sided z, Bonferroni at α = 1e-3).
TEST(L2gdRate, BoundHoldsAtEveryIterationOnQuadraticsAndLogistic) {
  expect_claim_holds("personalised.l2gd-rate");
}

// THEORY (P4): p* = λ/(λ + L); the exact communication count at p* falls as λ → 0 and is below
// gradient descent's for λ ≤ 0.1L (deterministic).
TEST(L2gdCommunication, OptimalProbabilityAndCountAgainstP4) {
  expect_claim_holds("personalised.communication");
}

// Monte Carlo check of the communication counter: rounds per chain vs (k − 1)p(1 − p).
TEST(L2gdCommunication, CountedRoundsMatchExpectation) {
  const auto q = make_quadratic(2, 2, 0.2, 1.0, 20);
  const estimators::L2gdSimulationSpec spec{
      .setting = {0.5, 0.3, 0.1}, .chains = 2000, .iterations = 400};
  const auto sim = estimators::simulate_l2gd(q, spec);
  const double expected = theory::expected_communications(0.3, 400);
  // Var(rounds) ≤ k·p(1 − p)·3 (indicators of 0→1 transitions are 1-dependent: variance at most 3×
  // that of independent indicators); SE = sqrt(var/K).
  const double se = std::sqrt(3 * 400 * 0.21 / 2000.0);
  fmt::print("rounds per chain {:.3f}, expected {:.3f}, bits {:.0f}\n", sim.rounds_mean, expected,
             sim.bits_mean);
  EXPECT_NEAR(sim.rounds_mean, expected, z_two_sided(kFamilyAlpha, 1) * se);
  EXPECT_DOUBLE_EQ(sim.bits_mean, sim.rounds_mean * 2 * 2 * 64 * 2);
}

// Local steps between aggregations (THEORY (P2), "local steps between aggregations"): per
// averaging step (1 − p)/p on average (the seed's count, runs of length 0 included), per
// communication round 1/p·k/(k − 1) → 1/p (a round follows a non-empty run). Checked through the
// sampler's counters: averaging steps per chain against kp (binomial, SE √(kp(1 − p)/K)), and the
// local steps per round against 1/p·k/(k − 1) within z·SE, the SE of the ratio by the delta method
// from the 1-dependent round indicators (variance ≤ 3× independent, as above).
TEST(L2gdCommunication, LocalStepsPerRoundAreOneOverP) {
  const auto q = make_quadratic(2, 2, 0.2, 1.0, 20);
  const int k = 400;
  const double p = 0.3;
  const estimators::L2gdSimulationSpec spec{
      .setting = {0.5, p, 0.1}, .chains = 2000, .iterations = k, .seed = 41};
  const auto sim = estimators::simulate_l2gd(q, spec);
  const double z = z_two_sided(kFamilyAlpha, 2);
  EXPECT_NEAR(sim.averaging_steps_mean, k * p, z * std::sqrt(k * p * (1 - p) / 2000.0));
  const double local = k - sim.averaging_steps_mean;
  const double per_average = local / sim.averaging_steps_mean;
  const double per_round = local / sim.rounds_mean;
  const double expected_round = k * (1 - p) / theory::expected_communications(p, k);
  // Delta method: rounds dominate the ratio's noise; rel. SE of rounds √(3k·p(1 − p)/K)/E[rounds].
  const double rel_se =
      std::sqrt(3.0 * k * p * (1 - p) / 2000.0) / theory::expected_communications(p, k) +
      std::sqrt(k * p * (1 - p) / 2000.0) / (k * (1 - p));
  fmt::print(
      "local steps per averaging step {:.4f} ((1 − p)/p = {:.4f}); per round {:.4f} (1/p "
      "= {:.4f}, exact {:.4f})\n",
      per_average, (1 - p) / p, per_round, 1 / p, expected_round);
  EXPECT_NEAR(per_round, expected_round, z * rel_se * expected_round);
  EXPECT_GT(std::abs(per_round - (1 - p) / p), 10 * z * rel_se * expected_round);
}

// =============================================================================================
// (d) Compressors: unbiased, variance ratio against ω.
// =============================================================================================

struct CompressorCase {
  CompressorSpec spec;
  const char* name;
};

// Statement: E𝒬(x) = x and E‖𝒬(x) − x‖² ≤ ω‖x‖²; random-k attains ω for every x; natural
// compression attains 1/8 at |x_i| = (4/3)·2^a; for dithering the exact variance is (‖x‖²/s²) Σ
// q_i(1 − q_i). THEORY (P5) Measurement: 20000 draws per (compressor, x), x among a random Gaussian
// vector, a constant vector, a spike and the natural-compression worst case (4/3)·2^a. Decision:
// each coordinate of the mean within z·SE of x, and the variance ratio within z·SE of its exact
// value (random-k: d/k − 1; natural: Σ(2^{a+1} − t)(t − 2^a)/‖x‖²; dithering: as above), z
// two-sided with Bonferroni over all comparisons at α = 1e-3; all ratios ≤ ω.
TEST(Compressors, UnbiasedWithVarianceRatioMatchingOmega) {
  constexpr int d = 8, kDraws = 20000;
  const std::vector<CompressorCase> cases{{{CompressorKind::random_k, 1}, "random-1"},
                                          {{CompressorKind::random_k, 3}, "random-3"},
                                          {{CompressorKind::dithering, 1}, "qsgd-1"},
                                          {{CompressorKind::dithering, 4}, "qsgd-4"},
                                          {{CompressorKind::natural, 0}, "natural"}};
  Stream gen(31, Purpose::test);
  std::vector<Vector> xs;
  Vector gaussian(d);
  for (int a = 0; a < d; ++a) gaussian[a] = gen.normal();
  xs.push_back(gaussian);
  xs.push_back(Vector::Constant(d, 1.0 / std::sqrt(double(d))));
  Vector spike = Vector::Zero(d);
  spike[2] = -3;
  xs.push_back(spike);
  Vector worst(d);
  for (int a = 0; a < d; ++a) worst[a] = (a % 2 ? -1 : 1) * (4.0 / 3) * std::ldexp(1.0, a - 3);
  xs.push_back(worst);
  const int tests = static_cast<int>(cases.size() * xs.size()) * (d + 1);
  const double z = z_two_sided(kFamilyAlpha, tests);
  for (const auto& c : cases) {
    const double omega = theory::compressor_omega(c.spec, d);
    double max_ratio = 0;
    for (std::size_t v = 0; v < xs.size(); ++v) {
      const Vector& x = xs[v];
      Stream s(5, Purpose::compression, v);
      Vector sum = Vector::Zero(d), sum_sq = Vector::Zero(d);
      double err = 0, err_sq = 0;
      for (int r = 0; r < kDraws; ++r) {
        const Vector y = estimators::compress(c.spec, x, s);
        sum += y;
        sum_sq += y.cwiseProduct(y);
        const double e = (y - x).squaredNorm() / x.squaredNorm();
        err += e;
        err_sq += e * e;
      }
      const Vector mean = sum / kDraws;
      const Vector var = (sum_sq / kDraws - mean.cwiseProduct(mean)).cwiseMax(0);
      const double ratio = err / kDraws;
      const double ratio_se = std::sqrt(std::max(0.0, err_sq / kDraws - ratio * ratio) / kDraws);
      double exact = 0;
      switch (c.spec.kind) {
        case CompressorKind::random_k:
          exact = omega;
          break;
        case CompressorKind::dithering:
          exact = estimators::dithering_variance(x, c.spec.parameter) / x.squaredNorm();
          break;
        case CompressorKind::natural:
          exact = estimators::natural_variance(x) / x.squaredNorm();
          break;
        default:
          break;
      }
      max_ratio = std::max(max_ratio, ratio);
      fmt::print(
          "{:9s} x#{}: measured E|Q(x)-x|^2/|x|^2 = {:.4f} ± {:.4f}, "
          "exact {:.4f}, "
          "omega {:.4f}\n",
          c.name, v, ratio, ratio_se, exact, omega);
      for (int a = 0; a < d; ++a) {
        const double se = std::sqrt(var[a] / kDraws);
        if (se == 0) {
          EXPECT_EQ(mean[a],
                    x[a]);  // deterministic coordinate (e.g. exact power of two)
        } else {
          EXPECT_LE(std::abs(mean[a] - x[a]), z * se) << c.name << " x#" << v << " coord " << a;
        }
      }
      if (ratio_se == 0) {
        EXPECT_NEAR(ratio, exact, 1e-12);
      } else {
        EXPECT_LE(std::abs(ratio - exact), z * ratio_se) << c.name << " x#" << v;
      }
      EXPECT_LE(exact, omega + 1e-12) << c.name << " x#" << v;
    }
    fmt::print("{:9s}: max measured ratio {:.4f} vs omega {:.4f}\n", c.name, max_ratio, omega);
  }
}

// =============================================================================================
// (e) Compressed L2GD.
// =============================================================================================

// Statement: with unbiased compressors, L2GD converges to x(λ) up to a neighbourhood that grows
// with ω. THEORY (P5) Setting: quadratic n = 3, d = 4, λ = 0.5, p = p*, α = α_max/8 (small enough
// for every ω here), x⁰ = 0, 600 iterations, uplink = downlink = 𝒬; 𝒬 ∈ {none (ω 0), natural (1/8),
// qsgd-2 (1), random-1 (3)}. Measurement: E x^600 and E‖x^600 − x(λ)‖² over K = 2000 chains.
// Decision: (i) E x^600 equals the exact uncompressed mean (the scheme is unbiased and affine),
// each coordinate within z·SE; (ii) the neighbourhood E‖x^600 − x(λ)‖² increases strictly with ω,
// each consecutive difference positive at z·SE (one-sided); z with Bonferroni at 1e-3.
TEST(CompressedL2gd, ConvergesToXLambdaWithNeighbourhoodGrowingWithOmega) {
  const auto q = make_quadratic(3, 4, 0.2, 1.0, 21);
  const double lambda = 0.5;
  const double p = theory::optimal_probability(lambda, q.smoothness());
  const Matrix xl = theory::personalised_optimum(q, lambda);
  const double alpha = theory::l2gd_constants(q, {lambda, p, 1}, xl).alpha_max / 8;
  constexpr int kIterations = 600;
  theory::L2gdMeanSquare exact(q, {lambda, p, alpha}, Matrix::Zero(4, 3));
  for (int k = 0; k < kIterations; ++k) exact.step();
  const std::vector<CompressorCase> cases{{{CompressorKind::identity, 0}, "none"},
                                          {{CompressorKind::natural, 0}, "natural"},
                                          {{CompressorKind::dithering, 2}, "qsgd-2"},
                                          {{CompressorKind::random_k, 1}, "random-1"}};
  const double z_mean = z_two_sided(kFamilyAlpha / 2, 4 * 12);
  const double z_order = z_one_sided(kFamilyAlpha / 2, 3);
  double prev_mse = -1, prev_se = 0;
  for (const auto& c : cases) {
    const estimators::L2gdSimulationSpec spec{.setting = {lambda, p, alpha},
                                              .chains = 2000,
                                              .iterations = kIterations,
                                              .seed = 99,
                                              .uplink = c.spec,
                                              .downlink = c.spec};
    const auto sim = estimators::simulate_l2gd(q, spec);
    const double mse = sim.mse_mean.back(), se = sim.mse_se.back();
    const Matrix zmean = ((sim.final_mean - exact.mean()).array() / sim.final_se.array()).matrix();
    fmt::print(
        "{:9s} omega {:.3f}: E|x-x(l)|^2 = {:.4e} ± {:.1e} (exact "
        "uncompressed {:.4e}), "
        "max |z| of mean {:.2f}, bits/chain {:.3g}\n",
        c.name, theory::compressor_omega(c.spec, 4), mse, se, exact.mean_square_error(),
        zmean.cwiseAbs().maxCoeff(), sim.bits_mean);
    EXPECT_FALSE(sim.diverged);
    if (c.spec.kind != CompressorKind::identity) {
      EXPECT_LE(zmean.cwiseAbs().maxCoeff(), z_mean) << c.name;
    }
    if (prev_mse >= 0) {
      EXPECT_GT(mse - prev_mse, z_order * std::hypot(se, prev_se)) << c.name;
    }
    prev_mse = mse;
    prev_se = se;
  }
}

// =============================================================================================
// L2SGD+ ([L2GD] Algorithm 2; estimators/samplers/l2gd.hpp, simulate_l2sgd_plus).
// =============================================================================================

// Statement: with the control variates switched off, L2SGD+ is L2SGD, and for one-sample clients
// (quadratics, m_i = 1) L2SGD is L2GD (P2). Setting: quadratic n = 4, d = 3; λ = 0.5, p = 0.3, α =
// 0.5; 16 chains, 200 iterations, same seed. Measurement: both samplers' trajectories. Decision:
// bit-identical (same coin stream, same arithmetic) — any difference means the plumbing of the new
// sampler differs from (P2).
TEST(L2sgdPlus, WithoutControlVariatesOnOneSampleClientsIsL2gdBitForBit) {
  const auto q = make_quadratic(4, 3, 0.1, 1.0, 31);
  const L2gdSetting setting{0.5, 0.3, 0.5};
  const estimators::L2gdSimulationSpec l2gd{
      .setting = setting, .chains = 16, .iterations = 200, .seed = 5};
  const estimators::L2sgdPlusSpec plain{.setting = setting,
                                        .chains = l2gd.chains,
                                        .iterations = l2gd.iterations,
                                        .seed = l2gd.seed,
                                        .variance_reduction = false};
  const auto a = estimators::simulate_l2gd(q, l2gd);
  const auto b = estimators::simulate_l2sgd_plus(q, plain);
  EXPECT_EQ(a.mse_mean, b.mse_mean);
  EXPECT_EQ(a.final_mean, b.final_mean);
  EXPECT_EQ(a.rounds_mean, b.rounds_mean);
}

// Estimate of the unbiased L2SGD+ gradient (header): the bracket averaged over the coin and the
// sample index is column i of n∇F. Checked through its consequence below; here the per-sample
// gradients themselves: their mean over j is ∇f_i (the finite-sum view is the problem). Decision:
// |mean_j ∇f_ij − ∇f_i| ≤ 1e-14·(1 + ‖∇f_i‖) (round-off of a 20-term mean).
TEST(L2sgdPlus, SampleGradientsAverageToTheClientGradient) {
  const auto lg = make_logistic(3, 20, 2, 0.1, 32);
  Vector x(2);
  x << 0.3, -0.7;
  for (int i = 0; i < 3; ++i) {
    const int m = estimators::finite_sum_size(lg, i);
    ASSERT_EQ(m, 20);
    Vector mean = Vector::Zero(2);
    for (int j = 0; j < m; ++j) mean += estimators::sample_gradient(lg, i, j, x) / m;
    const Vector g = lg.gradient(i, x);
    EXPECT_LE((mean - g).norm(), 1e-14 * (1 + g.norm())) << "client " << i;
  }
}

struct DecayFit {
  estimators::SlopeEstimate early,
      late;  // slope of log E‖x^k − x(λ)‖² per iteration
};

// log mse against k over the windows [k0, k1) and [k1, k2), every `stride`-th point.
DecayFit fit_decay(const std::vector<double>& mse, int k0, int k1, int k2, int stride) {
  const auto fit = [&](int from, int to) {
    std::vector<double> k, y;
    for (int j = from; j < to; j += stride) {
      k.push_back(j);
      y.push_back(std::log(mse[j]));
    }
    return estimators::fit_slope(k, y, kFamilyAlpha);
  };
  return {fit(k0, k1), fit(k1, k2)};
}

// Statement: L2SGD+ converges linearly to x(λ) itself — its gradient estimate has no variance at
// x(λ) — whereas L2SGD (no control variates) and L2GD stall at a neighbourhood.  [L2GD], Algorithm
// 2 and its theorem (linear rate, no neighbourhood). Setting: (i) logistic, n = 3 clients of m = 20
// samples, d = 2, l2 = 0.1; (ii) the quadratic of the test above (m_i = 1: the only noise is the
// coin). λ = 0.5, p = p*, α = 1/(4𝓛_max) with 𝓛_max = (1/n) max{L_max/(1 − p), λ/p} and L_max the
// largest per-sample smoothness (‖a_j‖²/4 + l2 for logistic): the SAGA-type step; the paper's exact
// step-size constant was not re-checked. x⁰ = 0, 32 chains, seed 7. Prediction: log E‖x^k − x(λ)‖²
// decreases linearly in k until round-off; L2SGD and L2GD level off. Measurement: slopes of log mse
// over an early and a late window (both above round-off, chosen from the measured decay), and the
// final mse of both samplers. Decision: (a) the late slope's upper confidence limit (level α =
// 1e-3) is < 0 and the late slope is at least half the early one (a floor would flatten it); (b)
// final L2SGD+ mse ≤ 1e-10·‖x⁰ − x(λ)‖²; (c) the without-control-variates run stays above 1e-4·‖x⁰
// − x(λ)‖² and above its final value minus 5 standard errors of L2SGD+: the VR run is below 1e-6 ×
// the floor.
TEST(L2sgdPlus, ConvergesLinearlyToXLambdaWithoutNeighbourhood) {
  const auto lg = make_logistic(3, 20, 2, 0.1, 33);
  const auto q = make_quadratic(4, 3, 0.1, 1.0, 31);
  struct Case {
    const theory::Problem* problem;
    const char* name;
    int iterations;
  };
  for (const Case& c : {Case{&lg, "logistic", 12000}, Case{&q, "quadratic", 12000}}) {
    const theory::Problem& problem = *c.problem;
    const int n = problem.num_clients();
    double l_max = problem.smoothness();
    if (problem.kind() == theory::ProblemKind::logistic) {
      for (int i = 0; i < n; ++i) {
        const auto& f = lg.client(i).features;
        for (int j = 0; j < f.rows(); ++j)
          l_max = std::max(l_max, f.row(j).squaredNorm() / 4 + lg.l2());
      }
    }
    const double lambda = 0.5;
    const double p = theory::optimal_probability(lambda, problem.smoothness());
    const double l_cal = std::max(l_max / (1 - p), lambda / p) / n;
    estimators::L2sgdPlusSpec spec{.setting = {lambda, p, 1 / (4 * l_cal)},
                                   .chains = 32,
                                   .iterations = c.iterations,
                                   .seed = 7};
    const auto vr = estimators::simulate_l2sgd_plus(problem, spec);
    spec.variance_reduction = false;
    const auto plain = estimators::simulate_l2sgd_plus(problem, spec);
    const double e0 = vr.mse_mean.front();
    // Windows: from the first k where mse < 1e-2·e0 to the last where mse > 1e-12·e0 (well above
    // the round-off floor ~1e-26·e0 of x(λ) and of the iteration), split in halves.
    int k0 = 0, k2 = 0;
    while (k0 < c.iterations && vr.mse_mean[k0] > 1e-2 * e0) ++k0;
    k2 = k0;
    while (k2 < c.iterations && vr.mse_mean[k2] > 1e-12 * e0) ++k2;
    ASSERT_GT(k2 - k0, 40) << c.name << ": decay window too short to fit";
    const DecayFit fit = fit_decay(vr.mse_mean, k0, (k0 + k2) / 2, k2, 1);
    const double floor_plain = plain.mse_mean.back();
    fmt::print(
        "{}: alpha {:.4f}, p {:.3f}; L2SGD+ log-mse slope early {:.3e} "
        "[{:.3e}, {:.3e}], late "
        "{:.3e} [{:.3e}, {:.3e}] (k {}..{}..{}); final mse/e0: L2SGD+ "
        "{:.2e}, without control "
        "variates {:.2e} ± {:.1e}\n",
        c.name, spec.setting.alpha, p, fit.early.slope, fit.early.lower, fit.early.upper,
        fit.late.slope, fit.late.lower, fit.late.upper, k0, (k0 + k2) / 2, k2,
        vr.mse_mean.back() / e0, floor_plain / e0, plain.mse_se.back() / e0);
    EXPECT_FALSE(vr.diverged);
    EXPECT_LT(fit.late.upper, 0) << c.name;
    EXPECT_LE(fit.late.slope, 0.5 * fit.early.slope) << c.name;
    EXPECT_LE(vr.mse_mean.back(), 1e-10 * e0) << c.name;
    EXPECT_GE(floor_plain - 5 * plain.mse_se.back(), 1e-4 * e0) << c.name;
    EXPECT_LE(vr.mse_mean.back(), 1e-6 * floor_plain) << c.name;
  }
}

TEST(L2sgdPlus, SameSeedGivesBitIdenticalResultsForAnyThreadCount) {
  expect_thread_count_invariant(
      estimators::simulate_l2sgd_plus, make_logistic(3, 20, 2, 0.1, 34),
      estimators::L2sgdPlusSpec{.setting = {0.3, 0.4, 0.2}, .chains = 16, .iterations = 100});
}

// =============================================================================================
// Partial participation (estimators/samplers/l2gd.hpp: τ of n clients per averaging step).
// =============================================================================================

// Statement: the sampled averaging step x_i ← x_i − θ(n − 1)/(τ − 1)·(x_i − x̄_S), i ∈ S, is
// unbiased for the full step, so on quadratics E x^k equals the L2GD mean recursion exactly, for
// every k; the communication is one round per averaging step with τ participants. Setting:
// quadratic n = 5, d = 2, μ = 0.2, L = 1; τ = 2; λ = 0.5, p = 0.3, α = 0.5 (θ_τ = 0.67); x⁰ = 0;
// K = 4000 chains, 60 iterations, seed 11. Prediction: E x^60 = L2gdMeanSquare::mean() (exact, full
// participation); averaging steps per chain ~ Binomial(60, p), mean 18; participations = τ·rounds =
// τ·averaging steps. Decision: max over the 10 coordinates of |z| of E x^60, and |z| of the
// averaging-step count, ≤ the two-sided Bonferroni quantile at family level α = 1e-3 (11 tests);
// the counts exactly.
TEST(PartialParticipation, MeanFollowsTheFullParticipationRecursion) {
  const auto q = make_quadratic(5, 2, 0.2, 1.0, 35);
  const estimators::L2gdSimulationSpec spec{
      .setting = {0.5, 0.3, 0.5}, .chains = 4000, .iterations = 60, .seed = 11, .participating = 2};
  const auto sim = estimators::simulate_l2gd(q, spec);
  theory::L2gdMeanSquare exact(q, spec.setting, Matrix::Zero(2, 5));
  for (int k = 0; k < spec.iterations; ++k) exact.step();
  const double z = z_two_sided(kFamilyAlpha, 11);
  const Matrix zmean = ((sim.final_mean - exact.mean()).array() / sim.final_se.array()).matrix();
  const double steps_se = std::sqrt(60 * 0.3 * 0.7 / spec.chains);
  const double z_steps = (sim.averaging_steps_mean - 60 * 0.3) / steps_se;
  fmt::print(
      "tau = 2 of 5: max |z| of E x^60 vs exact full-participation mean "
      "{:.2f}; averaging steps "
      "{:.3f} (expected 18, z {:.2f}); threshold {:.2f}; E|x^60 - "
      "x(l)|^2 = {:.4e} ± {:.1e} vs "
      "full participation (exact) {:.4e}; participations/chain {:.2f}\n",
      zmean.cwiseAbs().maxCoeff(), sim.averaging_steps_mean, z_steps, z, sim.mse_mean.back(),
      sim.mse_se.back(), exact.mean_square_error(), sim.participations_mean);
  EXPECT_FALSE(sim.diverged);
  EXPECT_LE(zmean.cwiseAbs().maxCoeff(), z);
  EXPECT_LE(std::abs(z_steps), z);
  EXPECT_EQ(sim.rounds_mean, sim.averaging_steps_mean);
  EXPECT_EQ(sim.participations_mean, 2 * sim.rounds_mean);
  EXPECT_DOUBLE_EQ(sim.bits_mean, sim.participations_mean * 2 * 64 * 2);
}

// τ = n is L2GD (the default path) bit for bit; τ outside 2..n is an input error naming the field.
TEST(PartialParticipation, AllClientsIsL2gdAndBadTauIsRejected) {
  const auto q = make_quadratic(4, 3, 0.1, 1.0, 36);
  estimators::L2gdSimulationSpec spec{.setting = {0.5, 0.3, 0.5}, .chains = 8, .iterations = 100};
  const auto all = estimators::simulate_l2gd(q, spec);
  spec.participating = 4;
  const auto tau_n = estimators::simulate_l2gd(q, spec);
  EXPECT_EQ(all.mse_mean, tau_n.mse_mean);
  EXPECT_EQ(all.rounds_mean, tau_n.rounds_mean);
  for (int bad : {1, 5, -1}) {
    spec.participating = bad;
    try {
      estimators::simulate_l2gd(q, spec);
      ADD_FAILURE() << "tau = " << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--participating"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fedverify
