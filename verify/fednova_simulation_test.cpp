// FedNova's chain engine against its exact stationary moments (THEORY A2): the sampler
// (estimators/samplers/algorithms/fednova.cpp) and the closed forms (theory/algorithms/
// fednova.cpp) are sibling layers, so their agreement is checked here.
//
// Statement: after T rounds from x = 0, the K chains are independent draws from a law whose mean
// and covariance are the exact stationary ones up to the transient (ρ^T ≤ 1e-10, asserted),
// negligible against the MCSE. Decision: verify::expect_moments (per-entry z-tests, Bonferroni)
// at α = 1e-3 per setting. Planted (measured when written): the sampler without the rescaling
// by H̄, x − (1/N) Σ_c (x − y_c)/H_c, fails it with largest |z| = 125 in the first setting (the
// covariance shrinks about 4-fold) against the threshold 3.72.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "theory/algorithms/fednova.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 3000;
constexpr int kRounds = 250;

TEST(FednovaSimulation, StationaryMomentsAreTheExactOnes) {
  const auto q = verify::quadratic(2, 4, 1.0);
  for (const std::vector<double>& steps :
       {std::vector<double>{1, 2, 4, 8}, std::vector<double>{3, 1, 1, 5}, std::vector<double>{2}}) {
    std::string label = "client_steps";
    for (const double h : steps) label += " " + std::to_string(static_cast<int>(h));
    estimators::SamplerOptions o;
    o.algorithm = theory::Algorithm{"fednova"};
    o.step = {0.05, 1};
    o.step.parameters.emplace(std::string(theory::kClientStepsKey), steps);
    o.seed = 2027;
    const theory::ExactMoments exact = theory::fednova_exact(q, o.step);
    ASSERT_LT(std::pow(exact.spectral_radius, kRounds), 1e-10) << label;
    estimators::ChainEnsemble e(q, o, Vector::Zero(q.dim()), kChains);
    e.advance_recording(kRounds, 0, [](int, const Matrix&) {});
    verify::expect_moments(e.state(), exact.mean, exact.cov, kAlpha, label);
  }
}

// The same on a linear-sa problem with multiplicative noise (the law of theory/algorithms/
// fednova_lsa.cpp): FedNova and FedAvg with the same unequal steps share the sampler's local steps
// and differ in the server's weights; the FedAvg variant has no sampler of its own, so only
// FedNova's chain is simulated.
TEST(FednovaSimulation, LinearSaStationaryMomentsAreTheExactOnes) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 3, 4, 1, 43);
  estimators::SamplerOptions o;
  o.algorithm = theory::Algorithm{"fednova"};
  o.step = {0.05, 1};
  o.step.parameters.emplace(std::string(theory::kClientStepsKey), std::vector<double>{1, 2, 4});
  o.seed = 2029;
  const theory::ExactMoments exact =
      theory::unequal_steps_exact_lsa(p, o.step, theory::UnequalStepsAggregation::normalised);
  const int rounds = 400;
  ASSERT_LT(std::pow(exact.spectral_radius, rounds), 1e-10);
  estimators::ChainEnsemble e(p, o, Vector::Zero(p.dim()), kChains);
  e.advance_recording(rounds, 0, [](int, const Matrix&) {});
  verify::expect_moments(e.state(), exact.mean, exact.cov, kAlpha, "linear-sa, steps 1 2 4");
}

}  // namespace
}  // namespace fedverify
