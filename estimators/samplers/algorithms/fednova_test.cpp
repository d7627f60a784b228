// FedNova's round (estimators/samplers/algorithms/fednova.cpp, THEORY A2) on the chain engine:
//  - noise-free, one round from x = 1 with unequal H_c equals the round computed here literally
//    (each client's H_c gradient steps through Problem::gradient, then the normalised average);
//  - with every H_c = H, three noisy rounds equal FedAvg's (same noise streams: client c's H
//    steps draw the same normals) to rounding;
//  - a --client-steps list of the wrong length is refused before any round, naming the flag;
//  - with --random-steps 1 (THEORY (A2c)), noise-free, each chain's round is the normalised average
//    with its own draws H_c = 1 + below(K_c) of its client-sampling streams, computed here
//    literally, τ_eff the chain's mean of them; the chains draw different H_c.
// Tolerances: the two sides differ by the order of their additions only, ≤ (3N + 2) roundings
// of numbers of size ≤ max|x|, ~1e-15 · N here: 1e-12 absolute on states of order 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/fednova_setting.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;

constexpr Algorithm kFednova{"fednova"};

SamplerOptions fednova(double gamma, std::vector<double> steps) {
  SamplerOptions o = verify::options(kFednova, gamma, 1);
  o.step.parameters.emplace(std::string(theory::kClientStepsKey), std::move(steps));
  return o;
}

TEST(Engine, FednovaRoundIsTheNormalisedAverage) {
  const auto q = verify::quadratic(3, 3, 0.0);  // deterministic gradients
  const double gamma = 0.1;
  const std::vector<double> steps = {1, 3, 6};
  ChainEnsemble e(q, fednova(gamma, steps), Vector::Ones(3), 5);
  e.advance(1, 1, {});
  const Vector x = Vector::Ones(3);
  Vector total = Vector::Zero(3);
  for (int c = 0; c < 3; ++c) {
    Vector y = x;
    for (int h = 0; h < steps[c]; ++h) y -= gamma * q.gradient(c, y);
    total += (x - y) / steps[c];
  }
  const double mean_steps = (1 + 3 + 6) / 3.0;
  const Vector expected = x - mean_steps / 3 * total;
  for (int k = 0; k < 5; ++k) {
    EXPECT_LE((e.state().col(k) - expected).cwiseAbs().maxCoeff(), 1e-12) << "chain " << k;
  }
  EXPECT_EQ(e.chain_steps(), 5 * (1 + 3 + 6));  // K chains × Σ_c H_c local steps
}

TEST(Engine, FednovaWithEqualStepsIsFedavg) {
  const auto q = verify::quadratic(3, 4, 1.0);
  ChainEnsemble nova(q, fednova(0.05, {3}), Vector::Ones(3), 10);
  ChainEnsemble avg(q, verify::options(Algorithm::fedavg, 0.05, 3), Vector::Ones(3), 10);
  nova.advance(3, 1, {});
  avg.advance(3, 1, {});
  EXPECT_LE((nova.state() - avg.state()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT((nova.state() - Matrix::Ones(3, 10)).cwiseAbs().maxCoeff(), 1e-3);  // it moved
}

TEST(Engine, FednovaRefusesAListOfTheWrongLength) {
  const auto q = verify::quadratic(2, 3, 1.0);
  try {
    ChainEnsemble e(q, fednova(0.05, {1, 2}), Vector::Zero(2), 4);
    e.advance(1, 1, {});
    FAIL() << "accepted 2 values for 3 clients";
  } catch (const InputError& err) {
    EXPECT_EQ(std::string(err.what()).rfind("--client-steps: expected one value per client (3)", 0),
              0u)
        << err.what();
  }
}

TEST(Engine, FednovaRandomStepsDrawPerChainAndRound) {
  const auto q = verify::quadratic(3, 3, 0.0);  // deterministic gradients
  const double gamma = 0.1;
  const std::vector<double> bounds = {2, 3, 6};
  SamplerOptions o = fednova(gamma, bounds);
  o.step.parameters.emplace(std::string(theory::kRandomStepsKey), std::vector<double>{1.0});
  constexpr int kChains = 12;
  ChainEnsemble e(q, o, Vector::Ones(3), kChains);
  e.advance(1, 1, {});
  const Vector x = Vector::Ones(3);
  std::vector<int> first_client;
  for (int k = 0; k < kChains; ++k) {
    Vector total = Vector::Zero(3);
    double steps_sum = 0;
    for (int c = 0; c < 3; ++c) {
      Stream stream(o.seed, Purpose::client_sampling, static_cast<std::uint64_t>(k),
                    static_cast<std::uint64_t>(c), 0);
      const int h = 1 + static_cast<int>(stream.below(static_cast<std::uint64_t>(bounds[c])));
      if (c == 2) first_client.push_back(h);
      steps_sum += h;
      Vector y = x;
      for (int i = 0; i < h; ++i) y -= gamma * q.gradient(c, y);
      total += (x - y) / h;
    }
    const Vector expected = x - (steps_sum / 3.0) / 3.0 * total;
    EXPECT_LE((e.state().col(k) - expected).cwiseAbs().maxCoeff(), 1e-12) << "chain " << k;
  }
  std::sort(first_client.begin(), first_client.end());
  EXPECT_NE(first_client.front(), first_client.back());  // the draws differ between chains
}

}  // namespace
}  // namespace fedverify::estimators
