// The first-round replay of conformance (localise.hpp) on synthetic traces: a correct FedAvg,
// FedProx or Scaffold first round replays exactly (also with round-off of the size an
// implementation's own arithmetic makes); each planted deviation is found in the part it
// belongs to — local steps or aggregation — and named by its pattern; the aggregation's factor
// is recovered. Deterministic: the "gradients" are fixed pseudo-random numbers.
#include "reports/conformance/localise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace fedverify::reports {
namespace {

constexpr int kDim = 3, kClients = 4, kChains = 5, kSteps = 4;

// A deterministic, irregular "stochastic gradient" at x for (chain, client, step).
Vector gradient(int chain, int client, int step, const Vector& x) {
  Vector g(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    g(i) = (1.0 + 0.3 * client) * x(i) +
           std::sin(1.7 * chain + 2.3 * client + 0.9 * step + static_cast<double>(i));
  }
  return g;
}

struct Planted {
  // The step a client takes from y with the gradients returned so far (g_now, g_before).
  std::function<Vector(const Vector& y, const Vector& x0, const Vector& g_now,
                       const Vector& g_before, int client)>
      step;
  // The aggregate of the round from x0 and the clients' endpoints.
  std::function<Vector(const Vector& x0, const std::vector<Vector>& ends)> aggregate;
  int steps = kSteps;
};

ReplaySetting setting(const std::string& algorithm, double mu = 0) {
  return {algorithm, 0.05, kSteps, mu, 0, kClients, {}};
}

Planted correct(const ReplaySetting& s) {
  Planted p;
  p.step = [s](const Vector& y, const Vector& x0, const Vector& g, const Vector&, int) {
    return Vector(y - s.gamma * (g + s.mu * (y - x0)));
  };
  p.aggregate = [](const Vector&, const std::vector<Vector>& ends) {
    Vector sum = Vector::Zero(ends[0].size());
    for (const Vector& e : ends) sum += e;
    return Vector(sum / static_cast<double>(ends.size()));
  };
  return p;
}

// Runs the planted first round on kChains chains and replays it.
Localisation replay(const Planted& p, const ReplaySetting& s) {
  std::vector<TracedGradient> calls;
  Matrix x0(kDim, kChains), x1(kDim, kChains);
  for (int k = 0; k < kChains; ++k) {
    const Vector start = Vector::LinSpaced(kDim, 1.0 + k, -0.5 * k);
    std::vector<Vector> ends;
    for (int c = 0; c < kClients; ++c) {
      Vector y = start, before = Vector::Zero(kDim);
      for (int j = 0; j < p.steps; ++j) {
        const Vector g = gradient(k, c, j, y);
        calls.push_back({k, c, y, g});
        const Vector next = p.step(y, start, g, j == 0 ? g : before, c);
        before = g;
        y = next;
      }
      ends.push_back(y);
    }
    x0.col(k) = start;
    x1.col(k) = p.aggregate(start, ends);
  }
  return localise_first_round(calls, x0, x1, s);
}

TEST(LocaliseFirstRound, CorrectRoundsReplayExactly) {
  for (const auto& s : {setting("fedavg"), setting("fedprox", 0.5), setting("scaffold")}) {
    const Localisation l = replay(correct(s), s);
    EXPECT_TRUE(l.traced);
    EXPECT_TRUE(l.local_steps_ok) << s.algorithm << ": " << l.local_steps;
    EXPECT_TRUE(l.aggregation_ok) << s.algorithm << ": " << l.aggregation;
  }
}

TEST(LocaliseFirstRound, RoundOffOfAnotherEvaluationOrderIsNotABug) {
  // y − γg computed as y + (−γ)g and perturbed by 4 ulps: an implementation's own round-off.
  const ReplaySetting s = setting("fedavg");
  Planted p = correct(s);
  p.step = [s](const Vector& y, const Vector&, const Vector& g, const Vector&, int) {
    Vector next = y + (-s.gamma) * g;
    return Vector(next * (1 + 4 * std::numeric_limits<double>::epsilon()));
  };
  const Localisation l = replay(p, s);
  EXPECT_TRUE(l.local_steps_ok) << l.local_steps;
  EXPECT_TRUE(l.aggregation_ok) << l.aggregation;
}

TEST(LocaliseFirstRound, StaleGradientIsALocalStepBug) {
  const ReplaySetting s = setting("fedavg");
  Planted p = correct(s);
  p.step = [s](const Vector& y, const Vector&, const Vector&, const Vector& before, int) {
    return Vector(y - s.gamma * before);
  };
  const Localisation l = replay(p, s);
  EXPECT_FALSE(l.local_steps_ok);
  EXPECT_NE(l.local_steps.find("stale gradient"), std::string::npos) << l.local_steps;
  EXPECT_TRUE(l.aggregation_ok);  // not blamed: the replay stops at the local steps
}

TEST(LocaliseFirstRound, ConstantCorrectionNamesControlVariatesForScaffoldOnly) {
  for (const std::string algorithm : {"scaffold", "fedavg"}) {
    const ReplaySetting s = setting(algorithm);
    Planted p = correct(s);
    p.step = [s](const Vector& y, const Vector&, const Vector& g, const Vector&, int c) {
      return Vector(y - s.gamma * (g + Vector::Constant(kDim, 0.1 * (c - 1.5))));
    };
    const Localisation l = replay(p, s);
    EXPECT_FALSE(l.local_steps_ok);
    EXPECT_NE(l.local_steps.find("same"), std::string::npos) << l.local_steps;
    EXPECT_EQ(l.local_steps.find("control variates") != std::string::npos, algorithm == "scaffold")
        << l.local_steps;
  }
}

TEST(LocaliseFirstRound, WrongProximalTermAndWrongStepCount) {
  const ReplaySetting s = setting("fedprox", 0.5);
  Planted p = correct(s);
  p.step = [s](const Vector& y, const Vector& x0, const Vector& g, const Vector&, int) {
    return Vector(y - s.gamma * (g + 0.5 * s.mu * (y - x0)));  // μ/2 in place of μ
  };
  Localisation l = replay(p, s);
  EXPECT_FALSE(l.local_steps_ok);
  EXPECT_NE(l.local_steps.find("proximal term"), std::string::npos) << l.local_steps;

  Planted short_round = correct(setting("fedavg"));
  short_round.steps = kSteps - 1;
  l = replay(short_round, setting("fedavg"));
  EXPECT_FALSE(l.local_steps_ok);
  EXPECT_NE(l.local_steps.find("asked for 3 gradients"), std::string::npos) << l.local_steps;
}

TEST(LocaliseFirstRound, AggregationFactorsAreRecovered) {
  const ReplaySetting s = setting("fedavg");
  Planted models = correct(s);  // weights on the models summing to 1.05
  models.aggregate = [](const Vector&, const std::vector<Vector>& ends) {
    Vector sum = Vector::Zero(ends[0].size());
    for (const Vector& e : ends) sum += 1.05 / static_cast<double>(ends.size()) * e;
    return sum;
  };
  Localisation l = replay(models, s);
  EXPECT_TRUE(l.local_steps_ok) << l.local_steps;
  EXPECT_FALSE(l.aggregation_ok);
  EXPECT_NE(l.aggregation.find("sum to 1.05, not 1"), std::string::npos) << l.aggregation;

  Planted server = correct(s);  // a server step of 1.5 on the average update
  server.aggregate = [](const Vector& x0, const std::vector<Vector>& ends) {
    Vector sum = Vector::Zero(ends[0].size());
    for (const Vector& e : ends) sum += e / static_cast<double>(ends.size());
    return Vector(x0 + 1.5 * (sum - x0));
  };
  l = replay(server, s);
  EXPECT_FALSE(l.aggregation_ok);
  EXPECT_NE(l.aggregation.find("server step is 1.5"), std::string::npos) << l.aggregation;
}

// A declared server rule (ReplaySetting::server): the first step from m = 0 is
// x₁ = x₀ + η_g c (ȳ − x₀), c = 1 + β with Nesterov; that replays exactly, and an implementation
// that averages anyway is named with the factor it used.
TEST(LocaliseFirstRound, DeclaredServerRuleIsTheFirstStep) {
  ReplaySetting s = setting("fedavg");
  s.server = {0.6, 0.3, true};  // first step 0.6 · 1.3 = 0.78
  Planted nesterov = correct(s);
  nesterov.aggregate = [](const Vector& x0, const std::vector<Vector>& ends) {
    Vector sum = Vector::Zero(ends[0].size());
    for (const Vector& e : ends) sum += e / static_cast<double>(ends.size());
    const Vector delta = x0 - sum, m = delta;  // m = β · 0 + Δ
    return Vector(x0 - 0.6 * (delta + 0.3 * m));
  };
  Localisation l = replay(nesterov, s);
  EXPECT_TRUE(l.local_steps_ok && l.aggregation_ok) << l.local_steps << l.aggregation;

  l = replay(correct(s), s);  // plain averaging although the rule was declared
  EXPECT_FALSE(l.aggregation_ok);
  EXPECT_NE(l.aggregation.find("the server step is 1, not 0.78"), std::string::npos)
      << l.aggregation;
  EXPECT_NE(l.aggregation.find("η_g is ignored"), std::string::npos) << l.aggregation;
}

// A declared weight decay λ (THEORY C1): the steps y − γ(g + λy) replay exactly, and steps that
// leave it out are named as such, with the λ they used.
TEST(LocaliseFirstRound, DeclaredWeightDecayIsPartOfTheStep) {
  ReplaySetting s = setting("fedavg");
  s.weight_decay = 0.2;
  Planted decayed = correct(s);
  decayed.step = [s](const Vector& y, const Vector&, const Vector& g, const Vector&, int) {
    return Vector(y - s.gamma * (g + 0.2 * y));
  };
  Localisation l = replay(decayed, s);
  EXPECT_TRUE(l.local_steps_ok) << l.local_steps;
  l = replay(correct(setting("fedavg")), s);  // no decay although 0.2 is declared
  EXPECT_FALSE(l.local_steps_ok);
  EXPECT_NE(l.local_steps.find("applies no weight decay"), std::string::npos) << l.local_steps;
  l = replay(decayed, setting("fedavg"));  // a decay of 0.2 where none is declared
  EXPECT_NE(l.local_steps.find("decays the weights by λ = 0.2"), std::string::npos)
      << l.local_steps;
}

}  // namespace
}  // namespace fedverify::reports
