// FedOpt's round (estimators/samplers/algorithms/fedopt.cpp, THEORY O0, O2, O3, O5):
//  - with the default options (server sgd lr = 1, no momentum, client sgd, S = N) it is FedAvg's
//    round bit for bit, on a quadratic and a logistic problem;
//  - against a brute-force reference written from the formulas, chain by chain and client by
//    client (kernel on lane 0 of a one-chain block; subsets drawn from the chain's own stream):
//    exact equality, for heavy-ball and Nesterov momentum, FedProx and client sampling, K = 13
//    chains (a padded block), N = 5 (pairs and a lone client), 2 threads;
//  - same seed, 1 or 2 threads (chunked recording): the same states and momentum buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using theory::OptimiserRole;
using verify::options;
using verify::quadratic;
using verify::spread_start;

constexpr Algorithm kFedopt{"fedopt"};

SamplerOptions fedopt_options(const std::string& server, const std::string& client, int sampled) {
  SamplerOptions o = options(kFedopt, 0.05, 3);
  o.step.server = theory::parse_optimiser(server, OptimiserRole::server);
  o.step.client = theory::parse_optimiser(client, OptimiserRole::client);
  o.step.participating = sampled;
  return o;
}

TEST(FedoptRound, DefaultsAreFedAvgBitForBit) {
  const auto q = quadratic(4, 3, 1.0);
  const auto lg = verify::logistic(3, 3, 30, 2);
  for (const theory::Problem* p :
       {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&lg)}) {
    const Matrix start = spread_start(p->dim(), 13);
    ChainEnsemble a(*p, options(Algorithm::fedavg, 0.05, 3), start);
    ChainEnsemble b(*p, fedopt_options("sgd", "sgd", 0), start);
    a.advance(5, 2, {});
    b.advance(5, 2, {});
    EXPECT_EQ(a.state(), b.state());
  }
}

// The brute-force FedOpt: chain by chain, client by client.
Matrix reference_rounds(const theory::Problem& p, const SamplerOptions& o, const Matrix& start,
                        int rounds) {
  const int d = p.dim(), n = p.num_clients();
  const auto sampler = make_local_sampler(p);
  KernelWorkspace ws;
  const double lr = o.step.server.value("lr"), beta = o.step.server.value("momentum");
  const bool nesterov = o.step.server.value("nesterov") != 0.0;
  const double mu = o.step.client.is("fedprox") ? o.step.client.value("mu") : 0.0;
  const int s = o.step.participating == 0 ? n : o.step.participating;
  std::vector<double> y(static_cast<std::size_t>(d) * kLanes, 0.0), anchor(y.size(), 0.0);
  Matrix x = start, m = Matrix::Zero(d, start.cols());
  for (int t = 0; t < rounds; ++t) {
    for (Eigen::Index chain = 0; chain < start.cols(); ++chain) {
      // The chain's subset: a partial Fisher–Yates shuffle from its own stream.
      std::vector<bool> in(n, s == n);
      if (s < n) {
        Stream stream(o.seed, Purpose::client_sampling, static_cast<std::uint64_t>(chain), 0,
                      static_cast<std::uint64_t>(t));
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        for (int i = 0; i < s; ++i) {
          std::swap(order[i], order[i + static_cast<int>(stream.below(n - i))]);
          in[order[i]] = true;
        }
      }
      Vector total = Vector::Zero(d);
      for (int c = 0; c < n; ++c) {
        for (int i = 0; i < d; ++i) y[i * kLanes] = anchor[i * kLanes] = x(i, chain);
        const BatchAddress address{o.seed, Purpose::gradient_noise,
                                   static_cast<std::uint32_t>(chain), static_cast<std::uint32_t>(c),
                                   static_cast<std::uint32_t>(t)};
        if (mu == 0.0) {
          sampler->local_steps(c, address, 1, o.step.gamma, o.step.local_steps, y.data(), nullptr,
                               ws);
        } else {
          sampler->proximal_local_steps(c, address, 1, o.step.gamma, o.step.local_steps, mu,
                                        anchor.data(), y.data(), ws);
        }
        for (int i = 0; i < d; ++i) total(i) += in[c] ? y[i * kLanes] : 0.0;
      }
      for (int i = 0; i < d; ++i) {
        const double delta = x(i, chain) - total(i) / s;  // Δ
        if (beta == 0.0) {
          x(i, chain) -= lr * delta;
        } else {
          m(i, chain) = beta * m(i, chain) + delta;
          x(i, chain) -= nesterov ? lr * (delta + beta * m(i, chain)) : lr * m(i, chain);
        }
      }
    }
  }
  return x;
}

TEST(FedoptRound, RoundsAreTheBruteForceReference) {
  const auto q = quadratic(4, 5, 1.0);
  struct Case {
    const char* server;
    const char* client;
    int sampled;
  };
  for (const Case& c : {Case{"sgd:lr=1.5", "sgd", 0}, Case{"sgd:lr=0.7,momentum=0.5", "sgd", 0},
                        Case{"sgd:lr=0.5,momentum=0.3,nesterov=1", "sgd", 3},
                        Case{"sgd:lr=1.2", "fedprox:mu=0.8", 2},
                        Case{"sgd:lr=0.8,momentum=0.4", "fedprox:mu=0.5", 4}}) {
    SCOPED_TRACE(std::string(c.server) + " " + c.client + " S=" + std::to_string(c.sampled));
    const SamplerOptions o = fedopt_options(c.server, c.client, c.sampled);
    const Matrix start = spread_start(q.dim(), 13);
    ChainEnsemble e(q, o, start);
    e.advance(4, 2, {});
    EXPECT_EQ(e.state(), reference_rounds(q, o, start, 4));
  }
}

TEST(FedoptRound, SameSeedIsBitIdenticalOnOneAndTwoThreads) {
  const auto q = quadratic(3, 5, 1.0);
  const SamplerOptions o =
      fedopt_options("sgd:lr=0.5,momentum=0.3,nesterov=1", "fedprox:mu=0.5", 2);
  ChainEnsemble a(q, o, Vector::Zero(3), 37);
  ChainEnsemble b(q, o, Vector::Zero(3), 37);
  a.advance(20, 1, {});
  b.advance_recording(20, 2, [](int, const Matrix&) {});
  EXPECT_EQ(a.state(), b.state());
  EXPECT_EQ(a.auxiliary()[0], b.auxiliary()[0]);  // the momentum buffer
}

}  // namespace
}  // namespace fedverify::estimators
