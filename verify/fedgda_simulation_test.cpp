// FedGDA's sampler against its exact stationary law (THEORY M1): the samplers and the closed forms
// are sibling layers, so their agreement is checked here.
//
// Statement: after T rounds from z = 0 the K chains are independent draws from a law whose mean
// and covariance are the exact stationary ones up to the transient ρ^T (asserted ≤ 1e-10 below),
// negligible against the MCSE.
// Decision: verify::expect_moments (per-entry z-tests, Bonferroni) at α = 1e-3 per setting.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "estimators/samplers/games/fedgda.hpp"
#include "theory/algorithms/fedgda.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 4000;
constexpr int kRounds = 300;

TEST(FedgdaSimulation, StationaryMomentsAreTheExactOnes) {
  const theory::QuadraticGame g = verify::small_game();
  for (const theory::GdaSetting& s :
       {theory::GdaSetting{0.1, 0.1, 1}, theory::GdaSetting{0.05, 0.1, 5}}) {
    const std::string label = "alpha = (" + std::to_string(s.alpha_theta) + ", " +
                              std::to_string(s.alpha_tau) +
                              "), R = " + std::to_string(s.local_steps);
    const theory::ExactMoments exact = theory::fedgda_exact(g, s);
    ASSERT_LT(std::pow(exact.spectral_radius, kRounds), 1e-10) << label;
    Matrix state = Matrix::Zero(g.dim(), kChains);
    estimators::run_fedgda({g, s, 2026, 0}, state, kRounds, [](int, const Matrix&) {});
    verify::expect_moments(state, exact.mean, exact.cov, kAlpha, label);
  }
}

}  // namespace
}  // namespace fedverify
