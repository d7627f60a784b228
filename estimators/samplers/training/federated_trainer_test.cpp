// The federated trainer (estimators/samplers/training/federated_trainer.hpp): FedAvg (server SGD,
// client SGD, S = N) and FedExP against brute-force loops written here from THEORY (O0), (O4);
// FedProx with μ_p = 0 is client SGD bit for bit; Scaffold with K = 1 and S = N is FedAvg (the
// control variates average to the server's); partial participation; results bit-identical
// whatever the number of threads; bad options rejected naming the option.
// Tolerance of the brute-force comparisons: the two loops add the same terms in another order
// (the trainer in the sampled order), so they differ by round-off only, ≲ T·K·N·ε·max(1, ‖x‖)
// with a safety factor kSafety.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <vector>

#include "estimators/samplers/training/federated_trainer.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/multinomial_problem.hpp"

namespace fedverify {
namespace {

using estimators::FederatedConfig;
using estimators::Purpose;
using estimators::Stream;
using estimators::TrainerOptions;
using theory::ClassificationData;
using theory::OptimiserRole;
using verify::kEps;
using verify::kSafety;

// Five heterogeneous clients (3 features, 3 classes, 4–8 rows, shifted features).
theory::MultinomialProblem small_problem(int batch) {
  Stream s(61, Purpose::test);
  std::vector<ClassificationData> clients;
  for (int c = 0; c < 5; ++c) {
    const int n = 4 + c;
    ClassificationData d{Matrix(n, 3), std::vector<int>(static_cast<std::size_t>(n)), 3};
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < 3; ++i) d.features(j, i) = s.normal() + 0.5 * c * (i == 0);
      d.labels[static_cast<std::size_t>(j)] = static_cast<int>(s.below(3));
    }
    clients.push_back(std::move(d));
  }
  return {std::move(clients), 0.05, batch};
}

// K local SGD steps of client c in round t from x, with the minibatch rows of the trainer's
// documented stream Stream(seed, gradient_noise, 0, c, t) (K·B draws, step by step).
Vector local_sgd(const theory::MultinomialProblem& p, int c, int t, const Vector& x, double gamma,
                 int local_steps, std::uint64_t seed) {
  Stream stream(seed, Purpose::gradient_noise, 0, static_cast<std::uint64_t>(c),
                static_cast<std::uint64_t>(t));
  Vector y = x;
  for (int k = 0; k < local_steps; ++k) {
    std::vector<int> rows(static_cast<std::size_t>(p.batch_size()));
    for (int& r : rows) r = static_cast<int>(stream.below(p.client(c).samples()));
    y -= gamma * p.minibatch_gradient(c, y, rows);
  }
  return y;
}

double tolerance(int rounds, int local_steps, int clients, const Vector& x) {
  return kSafety * rounds * local_steps * clients * kEps * std::max(1.0, x.norm());
}

TEST(Trainer, FedAvgAndServerStepMatchBruteForce) {
  const auto p = small_problem(2);
  const TrainerOptions o{.sampled = 5, .local_steps = 3, .rounds = 6, .seed = 17};
  for (const double eta : {1.0, 0.7}) {
    FederatedConfig config;
    config.server_lr = eta;
    config.client_lr = 0.2;
    const Vector trained = estimators::train_federated(p, config, o).x;
    Vector x = Vector::Zero(p.dim());
    for (int t = 1; t <= o.rounds; ++t) {
      Vector delta = Vector::Zero(p.dim());
      for (int c = 0; c < 5; ++c) delta += (x - local_sgd(p, c, t, x, 0.2, 3, o.seed)) / 5.0;
      x -= eta * delta;  // THEORY (O0): x_{t+1} = x_t − η_g Δ_t
    }
    EXPECT_GT(x.norm(), 0.1);
    EXPECT_LE((trained - x).norm(), tolerance(o.rounds, 3, 5, x)) << "η_g = " << eta;
  }
}

TEST(Trainer, FedExpMatchesBruteForceWithTheLastTwoIteratesAveraged) {
  const auto p = small_problem(1);
  const TrainerOptions o{.sampled = 5, .local_steps = 4, .rounds = 5, .seed = 18};
  FederatedConfig config;
  config.server = theory::parse_optimiser("fedexp:eps=0.001", OptimiserRole::server);
  config.client_lr = 0.1;
  const Vector trained = estimators::train_federated(p, config, o).x;
  Vector x = Vector::Zero(p.dim()), previous = x;
  double largest_step = 0;
  for (int t = 1; t <= o.rounds; ++t) {
    Vector delta = Vector::Zero(p.dim());
    double spread = 0;
    for (int c = 0; c < 5; ++c) {
      const Vector dc = x - local_sgd(p, c, t, x, 0.1, 4, o.seed);
      delta += dc / 5.0;
      spread += dc.squaredNorm();
    }
    // THEORY (O4): η_t = max(1, Σ_c ‖Δ_c‖² / (2S(‖Δ_t‖² + ε))).
    const double eta = std::max(1.0, spread / (2.0 * 5 * (delta.squaredNorm() + 0.001)));
    largest_step = std::max(largest_step, eta);
    previous = x;
    x -= eta * delta;
  }
  EXPECT_GT(largest_step, 1.0) << "the test should exercise the extrapolation";
  const Vector averaged = 0.5 * (x + previous);
  EXPECT_LE((trained - averaged).norm(), tolerance(o.rounds, 4, 5, averaged));
}

TEST(Trainer, FedProxWithoutProximalTermIsSgdAndScaffoldWithOneStepIsFedAvg) {
  const auto p = small_problem(2);
  TrainerOptions o{.sampled = 5, .local_steps = 4, .rounds = 5, .seed = 19};
  FederatedConfig sgd;
  sgd.client_lr = 0.15;
  FederatedConfig prox = sgd;
  prox.client = theory::parse_optimiser("fedprox:mu=0", OptimiserRole::client);
  EXPECT_EQ(estimators::train_federated(p, sgd, o).x, estimators::train_federated(p, prox, o).x);
  // μ_p > 0 pulls the local iterates back: a different result.
  prox.client = theory::parse_optimiser("fedprox:mu=1", OptimiserRole::client);
  EXPECT_GT(
      (estimators::train_federated(p, sgd, o).x - estimators::train_federated(p, prox, o).x).norm(),
      1e-6);
  // Scaffold, K = 1, S = N: Δ = γ mean_c(g_c − c_c + c) = γ mean_c g_c since c = mean_c c_c.
  o.local_steps = 1;
  FederatedConfig scaffold = sgd;
  scaffold.scaffold = true;
  const Vector a = estimators::train_federated(p, sgd, o).x;
  const Vector b = estimators::train_federated(p, scaffold, o).x;
  EXPECT_LE((a - b).norm(), tolerance(o.rounds, 1, 5, a));
  // With K > 1 Scaffold's correction changes the path.
  o.local_steps = 4;
  EXPECT_GT(
      (estimators::train_federated(p, sgd, o).x - estimators::train_federated(p, scaffold, o).x)
          .norm(),
      1e-6);
}

TEST(Trainer, BitIdenticalWhateverTheThreadsAndPartialParticipation) {
  const auto p = small_problem(3);
  std::vector<estimators::TrainJob> jobs;
  for (const char* client : {"sgd", "adam", "dowg", "adagrad"}) {
    for (int seed = 1; seed <= 3; ++seed) {
      FederatedConfig c;
      c.client = theory::parse_optimiser(client, OptimiserRole::client);
      c.server = theory::parse_optimiser(seed == 2 ? "adam" : "sgd", OptimiserRole::server);
      c.server_lr = seed == 2 ? 0.1 : 1.0;
      c.client_lr = 0.05;
      jobs.push_back({&p,
                      c,
                      {.sampled = 2,
                       .local_steps = 3,
                       .rounds = 4,
                       .seed = static_cast<std::uint64_t>(seed)}});
    }
  }
  const auto one = estimators::train_many(jobs, 1);
  const auto two = estimators::train_many(jobs, 2);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_EQ(one[j].x, two[j].x) << "job " << j;
    EXPECT_EQ(one[j].x, estimators::train_federated(p, jobs[j].config, jobs[j].options).x);
  }
  // Partial participation (S = 2 of 5) differs from full participation.
  TrainerOptions full = jobs[0].options;
  full.sampled = 5;
  EXPECT_NE(one[0].x, estimators::train_federated(p, jobs[0].config, full).x);
}

TEST(Trainer, DivergenceIsReportedAndBadOptionsAreRefused) {
  const auto p = small_problem(1);
  FederatedConfig wild;
  wild.client_lr = 1e6;
  const auto r = estimators::train_federated(
      p, wild, {.sampled = 5, .local_steps = 5, .rounds = 5, .seed = 1, .divergence_norm = 1e3});
  EXPECT_TRUE(r.diverged);
  EXPECT_EQ(r.x, Vector::Zero(p.dim()));
  auto message = [&](const FederatedConfig& c, const TrainerOptions& o) -> std::string {
    try {
      estimators::train_federated(p, c, o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const FederatedConfig ok;
  EXPECT_NE(message(ok, {.sampled = 6}).find("--participating"), std::string::npos);
  EXPECT_NE(message(ok, {.sampled = 0}).find("--participating"), std::string::npos);
  EXPECT_NE(message(ok, {.sampled = 5, .local_steps = 0}).find("local_steps"), std::string::npos);
  FederatedConfig bad = ok;
  bad.client_lr = -1;
  EXPECT_NE(message(bad, {.sampled = 5}).find("--client"), std::string::npos);
}

}  // namespace
}  // namespace fedverify
