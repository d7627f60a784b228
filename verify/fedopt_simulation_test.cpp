// FedOpt's chain engine against its exact stationary moments (THEORY O2, O3, O5): the samplers
// and the closed forms are sibling layers, so their agreement is checked here.
//
// Statement: after T rounds from x = 0 (m = 0), the K chains of the engine are independent draws
// from a law whose mean and covariance are the exact stationary ones up to the transient, which
// ρ^T for the mean (asserted ≤ 1e-10 below) and the mean-square rate ≈ ρ² (+ O(γ²) with
// sampling) for the covariance: negligible against the MCSE (≈ 2 % of a standard deviation).
// Decision: verify::expect_moments (per-entry z-tests, Bonferroni) at α = 1e-3 per setting.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "estimators/samplers/chains.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::OptimiserRole;

constexpr theory::Algorithm kFedopt{"fedopt"};
constexpr double kAlpha = 1e-3;
constexpr int kChains = 3000;
constexpr int kRounds = 250;

TEST(FedoptSimulation, StationaryMomentsAreTheExactOnes) {
  const auto q = verify::quadratic(2, 4, 1.0);
  struct Case {
    const char* server;
    const char* client;
    int sampled;
  };
  for (const Case& c :
       {Case{"sgd:lr=1.5", "sgd", 0}, Case{"sgd:lr=0.7,momentum=0.5", "sgd", 0},
        Case{"sgd:lr=0.5,momentum=0.3,nesterov=1", "fedprox:mu=1", 0}, Case{"sgd", "sgd", 2},
        Case{"sgd:lr=0.8,momentum=0.4", "fedprox:mu=0.5", 3}}) {
    const std::string label =
        std::string(c.server) + " " + c.client + " S=" + std::to_string(c.sampled);
    estimators::SamplerOptions o;
    o.algorithm = kFedopt;
    o.step = {0.1, 3};
    o.step.server = theory::parse_optimiser(c.server, OptimiserRole::server);
    o.step.client = theory::parse_optimiser(c.client, OptimiserRole::client);
    o.step.participating = c.sampled;
    o.seed = 2026;
    const theory::ExactMoments exact = theory::fedopt_exact(q, o.step);
    ASSERT_LT(std::pow(exact.spectral_radius, kRounds), 1e-10) << label;
    estimators::ChainEnsemble e(q, o, Vector::Zero(q.dim()), kChains);
    e.advance_recording(kRounds, 0, [](int, const Matrix&) {});
    verify::expect_moments(e.state(), exact.mean, exact.cov, kAlpha, label);
  }
}

}  // namespace
}  // namespace fedverify
