// DP-FedAvg's round (estimators/samplers/algorithms/dpfedavg.cpp, THEORY A5) on the chain engine:
//  - without noise and clipping, three noisy rounds equal FedAvg's (the same gradient streams)
//    to rounding (≤ (3N + 2) roundings of numbers of order 1: 1e-12);
//  - with clipping norm S and no noise, every chain moves by at most S in a round (the average of
//    updates of norm ≤ S), and by exactly the clipped average computed here literally;
//  - the server noise: over many chains of a noise-free problem at x = x*, one round's
//    displacement has mean 0 and variance σ_dp² per coordinate (z tests at α = 1e-4 each).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/problems/dpfedavg_setting.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;

constexpr Algorithm kDpfedavg{"dpfedavg"};

SamplerOptions dpfedavg(double gamma, int h, double sigma, double clip = 0) {
  SamplerOptions o = verify::options(kDpfedavg, gamma, h);
  o.step.parameters.emplace(std::string(theory::kDpNoiseKey), std::vector<double>{sigma});
  if (clip > 0) o.step.parameters.emplace(std::string(theory::kClipKey), std::vector<double>{clip});
  return o;
}

TEST(Engine, DpfedavgWithoutNoiseOrClippingIsFedavg) {
  const auto q = verify::quadratic(3, 4, 1.0);
  ChainEnsemble dp(q, dpfedavg(0.05, 3, 0.0), Vector::Ones(3), 10);
  ChainEnsemble avg(q, verify::options(Algorithm::fedavg, 0.05, 3), Vector::Ones(3), 10);
  dp.advance(3, 1, {});
  avg.advance(3, 1, {});
  EXPECT_LE((dp.state() - avg.state()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT((dp.state() - Matrix::Ones(3, 10)).cwiseAbs().maxCoeff(), 1e-3);  // it moved
}

TEST(Engine, DpfedavgClipsEveryClientUpdate) {
  const auto q = verify::quadratic(3, 3, 0.0);  // deterministic gradients
  const double gamma = 0.1, clip = 0.05;
  const Vector x = 2.0 * Vector::Ones(3);
  ChainEnsemble e(q, dpfedavg(gamma, 4, 0.0, clip), x, 5);
  e.advance(1, 1, {});
  Vector total = Vector::Zero(3);
  for (int c = 0; c < 3; ++c) {
    Vector y = x;
    for (int h = 0; h < 4; ++h) y -= gamma * q.gradient(c, y);
    const Vector u = y - x;
    ASSERT_GT(u.norm(), clip);  // the clipping binds here
    total += u * (clip / u.norm());
  }
  const Vector expected = x + total / 3.0;
  for (int k = 0; k < 5; ++k) {
    EXPECT_LE((e.state().col(k) - expected).cwiseAbs().maxCoeff(), 1e-12) << "chain " << k;
    EXPECT_LE((e.state().col(k) - x).norm(), clip * (1 + 1e-12));
  }
}

TEST(Engine, DpfedavgServerNoiseHasTheDeclaredVariance) {
  const auto q = verify::quadratic(2, 3, 0.0);
  const Vector x_star = theory::problem_constants(q).x_star;
  const double sigma = 0.3;
  const int chains = 20000;
  ChainEnsemble e(q, dpfedavg(0.05, 2, sigma), x_star, chains);
  e.advance(1, 1, {});
  const Matrix z = (e.state().colwise() - x_star) / sigma;  // N(0, I) if the noise is right
  for (int i = 0; i < 2; ++i) {
    const double mean = z.row(i).mean();
    const double var = (z.row(i).array() - mean).square().sum() / (chains - 1);
    // z of the mean: mean·√K; of the variance: (var − 1)/√(2/K). |z| ≤ 3.9 at α = 1e-4.
    EXPECT_LE(std::abs(mean) * std::sqrt(chains), 3.9) << i;
    EXPECT_LE(std::abs(var - 1.0) / std::sqrt(2.0 / chains), 3.9) << i;
  }
}

}  // namespace
}  // namespace fedverify::estimators
