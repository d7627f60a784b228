// The DeepGMM trainers of estimators/samplers/training/deepgmm_trainer.hpp: a FedGDA round with
// R = 1 is one GDA step on the federated game (3.20) (equal-weight average of the clients'
// gradients), R local steps on one client are R centralised steps, runs are pure functions of
// the seed, divergence is reported, bad options are refused naming the field.
// Tolerances: round-off of the averaging, kSafety · N · ε · (‖θ₀‖∞ + α‖g‖∞) per entry.
#include <gtest/gtest.h>

#include <string>

#include "estimators/samplers/training/deepgmm_trainer.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/iv_data.hpp"

namespace fedverify::estimators {
namespace {

using theory::IvBatch;

struct Fixture {
  theory::DeepGmmGame game{theory::Mlp(1, {20, 3}), theory::Mlp(2, {20}), 0.25};
  theory::IvData data;
  std::vector<IvBatch> clients;
  Fixture() {
    theory::IvOptions o;
    o.samples = 600;
    o.clients = 4;
    data = theory::generate_iv(o);
    for (const auto& c : data.clients)
      clients.push_back(theory::select_columns(data.train.data, c));
  }
};

TEST(DeepGmmTrainer, FedGdaRoundWithOneLocalStepIsAGdaStepOnTheFederatedGame) {
  const Fixture s;
  DeepGmmTrainOptions o;
  o.federated = true;
  o.rounds = 1;
  o.alpha_theta = 0.05;
  o.alpha_tau = 0.2;
  const DeepGmmTrainResult r = train_deepgmm(s.game, s.clients, o);
  Stream init(o.seed, Purpose::initial_state);
  const Vector theta0 = s.game.g.initial(init), tau0 = s.game.f.initial(init);
  Vector mt = Vector::Zero(theta0.size()), mf = Vector::Zero(tau0.size()), gt, gf;
  for (const IvBatch& b : s.clients) {
    s.game.gradients(theta0, tau0, b, gt, gf);
    mt += gt / 4.0;
    mf += gf / 4.0;
  }
  const double n_eps = verify::kSafety * 4 * verify::kEps;
  EXPECT_LE((r.theta - (theta0 - o.alpha_theta * mt)).cwiseAbs().maxCoeff(),
            n_eps * (theta0.cwiseAbs().maxCoeff() + o.alpha_theta * mt.cwiseAbs().maxCoeff()));
  EXPECT_LE((r.tau - (tau0 + o.alpha_tau * mf)).cwiseAbs().maxCoeff(),
            n_eps * (tau0.cwiseAbs().maxCoeff() + o.alpha_tau * mf.cwiseAbs().maxCoeff()));
}

TEST(DeepGmmTrainer, LocalStepsOnOneClientAreCentralisedSteps) {
  const Fixture s;
  for (bool stochastic : {false, true}) {
    DeepGmmTrainOptions fed;
    fed.federated = true;
    fed.stochastic = stochastic;
    fed.rounds = 1;
    fed.local_steps = 5;
    fed.batch = 32;
    DeepGmmTrainOptions central = fed;
    central.federated = false;
    central.rounds = 5;
    const auto a = train_deepgmm(s.game, {s.data.train.data}, fed);
    const auto b = train_deepgmm(s.game, {s.data.train.data}, central);
    if (!stochastic) {
      // Same operations in the same order: bit-identical.
      EXPECT_EQ(a.theta, b.theta);
      EXPECT_EQ(a.tau, b.tau);
    } else {
      // Minibatches are addressed by round: the federated run draws its 5 steps from round 0's
      // stream, the centralised one from rounds 0..4 — same law, other draws.
      EXPECT_NE(a.theta, b.theta);
    }
  }
}

TEST(DeepGmmTrainer, RunsArePureFunctionsOfTheSeed) {
  const Fixture s;
  DeepGmmTrainOptions o;
  o.federated = true;
  o.stochastic = true;
  o.rounds = 20;
  o.local_steps = 3;
  o.batch = 16;
  const auto a = train_deepgmm(s.game, s.clients, o);
  const auto b = train_deepgmm(s.game, s.clients, o);
  EXPECT_EQ(a.theta, b.theta);
  EXPECT_EQ(a.tau, b.tau);
  o.seed = 2;
  EXPECT_NE(train_deepgmm(s.game, s.clients, o).theta, a.theta);
}

TEST(DeepGmmTrainer, DivergenceIsReportedAndBadOptionsRefused) {
  const Fixture s;
  DeepGmmTrainOptions o;
  o.rounds = 500;
  o.alpha_theta = 1e3;
  o.alpha_tau = 1e3;
  const auto r = train_deepgmm(s.game, {s.data.train.data}, o);
  EXPECT_TRUE(r.diverged);
  EXPECT_LT(r.rounds_run, 500);
  auto field_of = [&](DeepGmmTrainOptions bad, const std::vector<IvBatch>& clients) {
    try {
      train_deepgmm(s.game, clients, bad);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(0, std::string(e.what()).find(':'));
    }
    return std::string();
  };
  DeepGmmTrainOptions bad;
  bad.rounds = 0;
  const std::vector<IvBatch> pooled{s.data.train.data};
  EXPECT_EQ(field_of(bad, pooled), "rounds");
  bad = {};
  bad.alpha_tau = -1;
  EXPECT_EQ(field_of(bad, pooled), "alpha_tau");
  bad = {};
  EXPECT_EQ(field_of(bad, s.clients), "clients");  // centralised run given 4 batches
  bad.federated = true;
  bad.local_steps = 0;
  EXPECT_EQ(field_of(bad, s.clients), "local_steps");
}

}  // namespace
}  // namespace fedverify::estimators
