// Scaffold with a global step η_g (THEORY S9): the chain engine's round
// (estimators/samplers/algorithms/scaffold.hpp, x ← x + η_g(x̄ − x)) against the exact stationary
// moments of the closed forms (theory/algorithms/scaffold.cpp, the scaled round map of S6) —
// sibling layers, so their agreement is checked here.
//
// Statement: after T rounds from x = 0 (ξ_c = 0), the K chains are independent draws from a law
// whose mean and covariance are the exact stationary ones up to the transient (ρ^T ≤ 1e-10,
// asserted), negligible against the MCSE. Decision: verify::expect_moments (per-entry z-tests,
// Bonferroni) at α = 1e-3 per setting. Not vacuous: the η_g = 1 law is asserted to differ from the
// η_g law by more than 10 MCSEs of the covariance entry that differs most (so a sampler that
// ignored --server-lr would fail the z-tests).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "theory/algorithms/scaffold.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/scaffold_setting.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 3000;
constexpr int kRounds = 400;

TEST(ScaffoldServerStepSimulation, StationaryMomentsAreTheExactOnes) {
  const auto q = verify::quadratic(2, 3, 1.0);
  for (const double eta : {0.5, 1.5}) {
    const std::string label = "server_lr " + std::to_string(eta);
    estimators::SamplerOptions o;
    o.algorithm = theory::Algorithm::scaffold;
    o.step = {0.05, 3};
    o.step.parameters.emplace(std::string(theory::kServerLrKey), std::vector<double>{eta});
    o.seed = 2028;
    const theory::ScaffoldExactMoments exact = theory::scaffold_exact(q, o.step);
    ASSERT_LT(std::pow(exact.spectral_radius, kRounds), 1e-10) << label;
    const Matrix plain = theory::scaffold_exact(q, {0.05, 3}).x_cov();
    // The sample covariance's entry sd ≈ sqrt((Σ_ii Σ_jj + Σ_ij²)/K) ≤ sqrt(2/K)·max Σ_ii.
    const double sd = std::sqrt(2.0 / kChains) * exact.x_cov().diagonal().maxCoeff();
    ASSERT_GT((plain - exact.x_cov()).cwiseAbs().maxCoeff(), 10 * sd) << label;
    estimators::ChainEnsemble e(q, o, Vector::Zero(q.dim()), kChains);
    e.advance_recording(kRounds, 0, [](int, const Matrix&) {});
    verify::expect_moments(e.state(), exact.x_mean(), exact.x_cov(), kAlpha, label);
  }
}

}  // namespace
}  // namespace fedverify
