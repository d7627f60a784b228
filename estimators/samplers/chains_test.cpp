// The chain engine (estimators/samplers/chains.hpp): chain k does not depend on the number of
// chains, the number of threads or the chunking of rounds; SGD is FedAvg with one local step;
// one logistic step has the minibatch law of THEORY §6; the engine's FedAvg and Scaffold rounds
// are a brute-force reference written from THEORY F0/S0.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::expect_moments;
using verify::logistic;
using verify::options;
using verify::quadratic;
using verify::spread_start;

// --- Reproducibility ----------------------------------------------------------------------------

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

// SGD is FedAvg with H = 1 (THEORY G0): the two samplers are the same code path.
TEST(Engine, SgdIsFedAvgWithOneLocalStep) {
  const auto q = quadratic(3, 2, 1.0);
  ChainEnsemble sgd(q, options(Algorithm::sgd, 0.1, 1), Vector::Ones(3), 16);
  ChainEnsemble fedavg(q, options(Algorithm::fedavg, 0.1, 1), Vector::Ones(3), 16);
  sgd.advance(4, 1, {});
  fedavg.advance(4, 1, {});
  EXPECT_EQ(sgd.state(), fedavg.state());
}

// --- The law of one step ------------------------------------------------------------------------

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

// --- Rounds: brute-force reference -------------------------------------------------------------

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

}  // namespace
}  // namespace fedverify::estimators
