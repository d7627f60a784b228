// The robust rounds (estimators/samplers/algorithms/robust_round.*, THEORY (A6)) on the chain
// engine:
//  - on a noise-free problem every chain's round is the rule applied literally to the clients' H
//    exact-gradient steps (rfa: the geometric median; trimmed-mean: the trimmed mean), to rounding
//    (1e-12);
//  - trimmed-mean with β = 0 is FedAvg: three noisy rounds equal FedAvg's (the same streams);
//  - corrupted clients: with m = 1 of 3 and the mean (β = 0) on a noise-free problem at x*, one
//    round's displacement is s·ζ/N: over many chains mean 0, variance s²/N² per coordinate (z
//    tests at α = 1e-4 each); and m ≥ N is refused naming --corrupted.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/robust_aggregation.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;

SamplerOptions robust(Algorithm algorithm, double gamma, int h,
                      std::map<std::string, std::vector<double>, std::less<>> parameters) {
  SamplerOptions o = verify::options(algorithm, gamma, h);
  o.step.parameters = std::move(parameters);
  // The front ends fill in every declared default; so does this test.
  for (const theory::AlgorithmParameter& p : theory::describe(algorithm).parameters) {
    if (!o.step.parameters.contains(p.key)) o.step.parameters.emplace(p.key, p.default_value);
  }
  return o;
}

TEST(Engine, RobustRoundsApplyTheirRuleLiterally) {
  const auto q = verify::quadratic(3, 5, 0.0);  // deterministic gradients
  const double gamma = 0.1;
  const Vector x = 2.0 * Vector::Ones(3);
  Matrix y(3, 5);
  for (int c = 0; c < 5; ++c) {
    Vector yc = x;
    for (int h = 0; h < 2; ++h) yc -= gamma * q.gradient(c, yc);
    y.col(c) = yc;
  }
  ChainEnsemble rfa(q, robust(Algorithm{"rfa"}, gamma, 2, {{"weiszfeld_steps", {5}}}), x, 4);
  ChainEnsemble trimmed(q, robust(Algorithm{"trimmed-mean"}, gamma, 2, {{"trim", {0.2}}}), x, 4);
  rfa.advance(1, 1, {});
  trimmed.advance(1, 1, {});
  const Vector median = theory::geometric_median(y, Vector::Ones(5), 5, 1e-6);
  const Vector trim = theory::trimmed_mean(y, 0.2);
  for (int k = 0; k < 4; ++k) {
    EXPECT_LE((rfa.state().col(k) - median).cwiseAbs().maxCoeff(), 1e-12) << k;
    EXPECT_LE((trimmed.state().col(k) - trim).cwiseAbs().maxCoeff(), 1e-12) << k;
  }
  EXPECT_GT((median - y.rowwise().mean()).norm(), 1e-3);  // the rules differ from the mean here
}

TEST(Engine, TrimmedMeanWithoutTrimmingIsFedavg) {
  const auto q = verify::quadratic(3, 4, 1.0);
  ChainEnsemble t(q, robust(Algorithm{"trimmed-mean"}, 0.05, 3, {{"trim", {0.0}}}), Vector::Ones(3),
                  10);
  ChainEnsemble avg(q, verify::options(Algorithm::fedavg, 0.05, 3), Vector::Ones(3), 10);
  t.advance(3, 1, {});
  avg.advance(3, 1, {});
  EXPECT_LE((t.state() - avg.state()).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Engine, CorruptedClientsSendScaledGaussianUpdates) {
  const auto q = verify::quadratic(2, 3, 0.0);
  const Vector x_star = theory::problem_constants(q).x_star;
  const double s = 0.7;
  const int chains = 20000;
  ChainEnsemble e(q,
                  robust(Algorithm{"trimmed-mean"}, 0.05, 2,
                         {{"trim", {0.0}}, {"corrupted", {1}}, {"corruption", {s}}}),
                  x_star, chains);
  e.advance(1, 1, {});
  // Honest clients at x* move by γ·O(‖∇f_c(x*)‖) deterministically: subtract that round.
  ChainEnsemble honest(q, robust(Algorithm{"trimmed-mean"}, 0.05, 2, {{"trim", {0.0}}}), x_star, 1);
  honest.advance(1, 1, {});
  // The corrupted client replaces its iterate y_2 by x* + sζ: the average moves by (sζ − (y_2 −
  // x*))/3 relative to the honest round.
  Vector y2 = x_star;
  for (int h = 0; h < 2; ++h) y2 -= 0.05 * q.gradient(2, y2);
  const Vector shift = honest.state().col(0) - (y2 - x_star) / 3.0;
  const Matrix z = (e.state().colwise() - shift) * (3.0 / s);  // N(0, I) if the corruption is right
  for (int i = 0; i < 2; ++i) {
    const double mean = z.row(i).mean();
    const double var = (z.row(i).array() - mean).square().sum() / (chains - 1);
    EXPECT_LE(std::abs(mean) * std::sqrt(chains), 3.9) << i;
    EXPECT_LE(std::abs(var - 1.0) / std::sqrt(2.0 / chains), 3.9) << i;
  }
  EXPECT_THROW(ChainEnsemble(q, robust(Algorithm{"rfa"}, 0.05, 2, {{"corrupted", {3}}}), x_star, 4),
               InputError);
}

}  // namespace
}  // namespace fedverify::estimators
