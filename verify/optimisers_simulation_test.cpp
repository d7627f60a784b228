// Every optimiser of --algo fedopt (THEORY O0, O1, O4) through the chain engine.
//
// 1. Each one runs on quadratic and logistic problems in both roles, with finite results that do
//    not depend on the number of threads (bit for bit).
// 2. The engine's wiring of a rule — the server's state in the auxiliary states, started at round
//    0, step count t = round + 1; a client's state reset every round — equals a direct loop of
//    the same rule over a noiseless quadratic written out here (one client's H gradient steps,
//    the pseudo-gradient, the server update). The loop sums in another order than the kernel,
//    so they agree to round-off: kRelative = 1e-12 over 40 rounds (each round is a contraction,
//    so rounding errors do not grow; measured ≤ 1e-15).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/optimisers/update_rule.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::OptimiserRole;

constexpr theory::Algorithm kFedopt{"fedopt"};

estimators::SamplerOptions options(const std::string& server, const std::string& client,
                                   double gamma, int h) {
  estimators::SamplerOptions o;
  o.algorithm = kFedopt;
  o.step = {gamma, h};
  o.step.server = theory::parse_optimiser(server, OptimiserRole::server);
  o.step.client = theory::parse_optimiser(client, OptimiserRole::client);
  o.seed = 11;
  return o;
}

// The name with its required keys.
std::string spec_of(const std::string& name) { return name == "fedprox" ? "fedprox:mu=0.5" : name; }

Matrix run(const theory::Problem& p, const estimators::SamplerOptions& o, int threads) {
  constexpr int kChains = 11;  // two blocks of lanes, the second one partly idle
  estimators::ChainEnsemble e(p, o, verify::spread_start(p.dim(), kChains));
  e.advance(12, threads, [](const estimators::ChainEnsemble&) { return true; });
  return e.state();
}

TEST(OptimisersSimulation, EveryOptimiserRunsOnBothKindsWhateverTheThreads) {
  const theory::QuadraticProblem q = verify::quadratic(3, 4, 1.0);
  const theory::LogisticProblem l = verify::small_logistic(4);
  for (const theory::OptimiserKind& kind : theory::optimiser_kinds()) {
    const std::string name(kind.name);
    const bool server = kind.role == OptimiserRole::server;
    for (const theory::Problem* p :
         {static_cast<const theory::Problem*>(&q), static_cast<const theory::Problem*>(&l)}) {
      const std::string label = std::string(server ? "--server " : "--client ") + name +
                                (p == &q ? " quadratic" : " logistic");
      const auto o = options(server ? name : "sgd", server ? "sgd" : spec_of(name), 0.05, 3);
      const Matrix one = run(*p, o, 1);
      const Matrix two = run(*p, o, 2);
      EXPECT_TRUE(one.allFinite()) << label;
      EXPECT_EQ(one, two) << label << ": depends on the number of threads";
    }
  }
}

// A noiseless quadratic: client c's gradient A_c(y − b_c), no noise.
theory::QuadraticProblem noiseless() { return verify::quadratic(3, 4, 0.0); }

// The rounds written out: every client's H steps of `client` from x (its state started afresh),
// the pseudo-gradient Δ = x − mean(y_c), then `server` at step t.
Vector direct_loop(const theory::QuadraticProblem& q, const std::string& server_spec,
                   const std::string& client_spec, double gamma, int h, const Vector& x0,
                   int rounds) {
  const auto server_parsed = theory::parse_optimiser(server_spec, OptimiserRole::server);
  const auto client_parsed = theory::parse_optimiser(client_spec, OptimiserRole::client);
  const auto server = estimators::make_update_rule(server_parsed, server_parsed.value("lr"));
  const auto client = estimators::make_update_rule(client_parsed, gamma);
  const int d = q.dim();
  estimators::OwnedRuleState server_state(*server, d, 1);
  Vector x = x0;
  server->start(d, 1, x.data(), server_state.view());
  for (int t = 1; t <= rounds; ++t) {
    Vector mean = Vector::Zero(d);
    for (int c = 0; c < q.num_clients(); ++c) {
      estimators::OwnedRuleState state(*client, d, 1);
      Vector y = x;
      client->start(d, 1, y.data(), state.view());
      for (int step = 1; step <= h; ++step) {
        const Vector g = q.client(c).hessian * (y - q.client(c).optimum);
        client->update(d, 1, 1, step, y.data(), g.data(), state.view());
      }
      mean += y / q.num_clients();
    }
    const Vector delta = x - mean;
    server->update(d, 1, 1, t, x.data(), delta.data(), server_state.view());
  }
  return x;
}

TEST(OptimisersSimulation, EngineWiringEqualsTheDirectLoop) {
  constexpr double kRelative = 1e-12;
  constexpr int kRounds = 40;
  const theory::QuadraticProblem q = noiseless();
  const Vector x0 = Vector::LinSpaced(q.dim(), -1.0, 2.0);
  struct Case {
    const char* server;
    const char* client;
  };
  for (const Case& c :
       {Case{"adam:lr=0.05", "sgd"}, Case{"dowg", "sgd"}, Case{"prodigy:lr=0.5", "sgd"},
        Case{"sgd", "adam"}, Case{"sgd", "sgd:momentum=0.5,nesterov=1"},
        Case{"rmsprop:lr=0.05", "nadam"}, Case{"dog", "radam"},
        Case{"amsgrad:lr=0.02", "adagrad"}}) {
    const std::string label = std::string(c.server) + " / " + c.client;
    const double gamma = 0.1;
    const int h = 4;
    estimators::ChainEnsemble e(q, options(c.server, c.client, gamma, h), x0, 1);
    e.advance(kRounds, 1, [](const estimators::ChainEnsemble&) { return true; });
    const Vector engine = e.state().col(0);
    const Vector direct = direct_loop(q, c.server, c.client, gamma, h, x0, kRounds);
    EXPECT_LE((engine - direct).norm(), kRelative * direct.norm()) << label;
    EXPECT_GT((direct - x0).norm(), 1e-3) << label << ": the loop did not move";
  }
}

}  // namespace
}  // namespace fedverify
