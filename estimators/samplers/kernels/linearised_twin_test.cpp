// The coupled linearised twin (kernels/linearised_twin.hpp, THEORY (L3)) in the chain engine:
// the x rows are a plain run's bit for bit, on a quadratic the twin rows are the chain's, and on
// logistic the twin rows follow a scalar reference written from the per-sample gradients and
// Hessians of the theory (LogisticProblem::sample_gradients, logistic_d2) with the same draws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using theory::OptimiserRole;
using verify::spread_start;

constexpr Algorithm kFedopt{"fedopt"};

// The settings the twin supports (every round kind: FedAvg's client pairs and odd last client,
// Scaffold's corrections, FedRR's two runs, FedOpt's sampling, server momentum and FedProx).
struct Setting {
  std::string name;
  SamplerOptions options;
};
std::vector<Setting> settings() {
  std::vector<Setting> out;
  out.push_back({"fedavg", verify::options(Algorithm::fedavg, 0.05, 3)});
  out.push_back({"scaffold", verify::options(Algorithm::scaffold, 0.05, 2)});
  out.push_back({"fedrr", verify::options(Algorithm::fedrr, 0.05, 2)});
  SamplerOptions momentum = verify::options(kFedopt, 0.05, 2);
  momentum.step.server = theory::parse_optimiser("sgd:lr=0.7,momentum=0.5", OptimiserRole::server);
  momentum.step.participating = 2;
  out.push_back({"fedopt momentum, S = 2", momentum});
  SamplerOptions prox = verify::options(kFedopt, 0.05, 3);
  prox.step.client = theory::parse_optimiser("fedprox:mu=0.5", OptimiserRole::client);
  out.push_back({"fedopt fedprox", prox});
  return out;
}

constexpr int kChains = 13;  // two blocks, the second with idle lanes
constexpr int kRounds = 6;

// Statement: with the twin, the x rows of the state and of every auxiliary state equal a plain
// run's, bit for bit. Decision: exact equality.
TEST(LinearisedTwin, TheChainRowsAreThoseOfAPlainRun) {
  const auto lg = verify::logistic(3, 3, 20, 2);
  const auto q = verify::quadratic(3, 3, 1.0);
  for (const theory::Problem* problem :
       {static_cast<const theory::Problem*>(&lg), static_cast<const theory::Problem*>(&q)}) {
    const int d = problem->dim();
    for (const Setting& s : settings()) {
      SCOPED_TRACE(s.name + " on " + theory::to_string(problem->kind()));
      const Matrix start = spread_start(d, kChains);
      ChainEnsemble plain(*problem, s.options, start);
      SamplerOptions with_twin = s.options;
      with_twin.linearised_twin = true;
      ChainEnsemble twin(*problem, with_twin, start);
      ASSERT_EQ(twin.dim(), 2 * d);
      for (int t = 0; t < kRounds; ++t) {
        ASSERT_TRUE(plain.advance(1));
        ASSERT_TRUE(twin.advance(2));
      }
      EXPECT_EQ(Matrix(twin.state().topRows(d)), plain.state());
      for (std::size_t j = 0; j < plain.auxiliary().size(); ++j) {
        EXPECT_EQ(Matrix(twin.auxiliary()[j].topRows(d)), plain.auxiliary()[j])
            << "auxiliary " << j;
      }
    }
  }
}

// Statement: on a quadratic the per-sample linearisation is the problem itself, so the twin rows
// are the chain rows, bit for bit, after any number of rounds of any supported algorithm (THEORY
// (L3)); hence x − y ≡ 0. Decision: exact equality.
TEST(LinearisedTwin, OnAQuadraticTheTwinIsTheChain) {
  const auto q = verify::quadratic(3, 3, 1.0);
  for (const Setting& s : settings()) {
    SCOPED_TRACE(s.name);
    SamplerOptions with_twin = s.options;
    with_twin.linearised_twin = true;
    ChainEnsemble twin(q, with_twin, spread_start(3, kChains));
    for (int t = 0; t < kRounds; ++t) ASSERT_TRUE(twin.advance(1));
    EXPECT_EQ(Matrix(twin.state().topRows(3)), Matrix(twin.state().bottomRows(3)));
  }
}

// One round of the linearised twin of chain `chain` from y (FedAvg, or FedOpt with client
// FedProx μ and server sgd lr 1, full participation), written from the theory's per-sample
// gradient and Hessian at x* with the chain's own minibatch indices (indices_into on its stream):
//   y_c ← y_c − γ((1/B) Σ_b [∇ℓ_{j_b}(x*) + (φ''(ã_{j_b}ᵀx*) a a ᵀ + λI)(y_c − x*)] + μ(y_c − y)).
Vector reference_round(const theory::LogisticProblem& p, const Vector& x_star, const Vector& y,
                       std::uint64_t seed, int chain, double gamma, int h, double mu) {
  const int b = p.batch_size();
  Vector total = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) {
    const theory::LogisticClient& client = p.client(c);
    const Matrix grads = p.sample_gradients(c, x_star);
    std::vector<std::uint32_t> index(static_cast<std::size_t>(h * b));
    indices_into(BatchAddress{seed, Purpose::gradient_noise, static_cast<std::uint32_t>(chain),
                              static_cast<std::uint32_t>(c), 0},
                 static_cast<std::uint32_t>(client.features.rows()), index.data(), h * b);
    Vector yc = y;
    for (int step = 0; step < h; ++step) {
      Vector g = Vector::Zero(p.dim());
      for (int draw = 0; draw < b; ++draw) {
        const auto j = static_cast<Eigen::Index>(index[static_cast<std::size_t>(step * b + draw)]);
        const Vector a = client.features.row(j).transpose();
        const double curvature = theory::logistic_d2(client.labels(j) * a.dot(x_star));
        g += grads.col(j) + curvature * a * a.dot(yc - x_star) + p.l2() * (yc - x_star);
      }
      yc -= gamma * (g / b + mu * (yc - y));
    }
    total += yc;
  }
  return total / p.num_clients();
}

// Statement: on logistic the twin rows after one round are the linearised chain's with the chain's
// own draws (reference_round). Tolerance (round-off, not fitted): the kernel and the reference sum
// the same O(1) terms in different orders; each of the H steps adds ≈ (2d + 4)·B roundings of
// terms of size ≤ s = max(1, ‖y‖∞)(1 + ‖ã‖²) per coordinate and the contraction keeps them from
// growing, so |Δ| ≤ kRoundOffs·H·B·(2d + 4)·ε·s with a factor kRoundOffs = 4 for the averaging
// and the differences y − x* of the reference.
TEST(LinearisedTwin, LogisticTwinFollowsTheLinearisedChainWithTheSameDraws) {
  constexpr double kRoundOffs = 4.0;
  for (const int batch : {1, 3}) {
    const auto p = verify::logistic(3, 3, 20, batch);
    const Vector x_star = theory::minimizer(p);
    for (const double mu : {0.0, 0.5}) {
      SCOPED_TRACE("B = " + std::to_string(batch) + ", mu = " + std::to_string(mu));
      SamplerOptions o = verify::options(mu == 0.0 ? Algorithm::fedavg : kFedopt, 0.1, 3, 77);
      if (mu > 0.0) {
        o.step.client = theory::parse_optimiser("fedprox:mu=0.5", OptimiserRole::client);
      }
      o.linearised_twin = true;
      const Matrix start = spread_start(3, kChains);
      ChainEnsemble twin(p, o, start);
      ASSERT_TRUE(twin.advance(1));
      double rows = 0.0;
      for (int c = 0; c < p.num_clients(); ++c) {
        rows = std::max(rows, p.client(c).features.rowwise().squaredNorm().maxCoeff());
      }
      const double scale = std::max(1.0, start.cwiseAbs().maxCoeff()) * (1.0 + rows);
      const double tolerance = kRoundOffs * 3 * batch * (2 * 3 + 4) * verify::kEps * scale;
      for (int k = 0; k < kChains; ++k) {
        const Vector expected =
            reference_round(p, x_star, start.col(k), o.seed, k, o.step.gamma, 3, mu);
        const Vector got = twin.state().col(k).tail(3);
        EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), tolerance) << "chain " << k;
      }
    }
  }
}

// Statement: a client optimiser the twin does not run (here sgd with momentum, no exact mean) is
// refused naming --control-variate, not run silently. Decision: the exception and its field.
TEST(LinearisedTwin, RefusesAClientRuleItDoesNotRun) {
  const auto lg = verify::logistic(3, 3, 20, 1);
  SamplerOptions o = verify::options(kFedopt, 0.05, 2);
  o.step.client = theory::parse_optimiser("sgd:momentum=0.5", OptimiserRole::client);
  o.linearised_twin = true;
  ChainEnsemble twin(lg, o, spread_start(3, 8));
  try {
    twin.advance(1);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--control-variate", 0), 0U) << e.what();
  }
}

}  // namespace
}  // namespace fedverify::estimators
