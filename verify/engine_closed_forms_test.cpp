// The chain engine against the closed forms of THEORY §1 (F5): the samplers
// (estimators/samplers, estimators/simulation) and the closed forms (theory/) are sibling layers,
// so their agreement is checked here. Synchronous coupling follows the deterministic round map,
// one noiseless round is the affine map x ↦ M x + γ r, one noisy round has the exact mean and
// covariance, and a round map of spectral radius > 1 is reported as a divergence.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "estimators/simulation/simulate.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::expect_moments;
using verify::kEps;
using verify::options;
using verify::quadratic;
using verify::spread_start;

// Synchronous coupling: two ensembles with the same seed and different starts see identical
// noise, so on a quadratic their difference evolves by the deterministic map x ↦ M x:
// x_t − x'_t = Mᵗ (x_0 − x'_0), up to round-off.
TEST(Engine, SameSeedDifferentStartsAreSynchronouslyCoupled) {
  const auto q = quadratic(3, 3, 1.0);
  const theory::RunSetting step{0.1, 3};
  const Matrix m = theory::fedavg_round_map(q, step).transition();
  ChainEnsemble a(q, options(Algorithm::fedavg, step.gamma, step.local_steps), Vector::Zero(3), 9);
  ChainEnsemble b(q, options(Algorithm::fedavg, step.gamma, step.local_steps), Vector::Ones(3), 9);
  const int rounds = 6;
  a.advance(rounds, 1, {});
  b.advance(rounds, 1, {});
  Vector expected = -Vector::Ones(3);
  for (int t = 0; t < rounds; ++t) expected = m * expected;
  // Round-off: |x| ≲ 5 here and each of rounds·N·H steps rounds at ~(2d + 3)ε relative; 64ε
  // per step covers it with room.
  const double tol = 64.0 * kEps * rounds * 3 * step.local_steps * 5.0;
  for (int k = 0; k < 9; ++k) {
    EXPECT_LE(((a.state().col(k) - b.state().col(k)) - expected).cwiseAbs().maxCoeff(), tol);
  }
}

// --- Exactness against THEORY (F5) -------------------------------------------------------------

// Statement (F5): with zero noise one FedAvg round is the affine map x ↦ M x + γ r.
// Measurement: one round of 16 chains from distinct starts vs theory::fedavg_round_map.
// Decision: max error ≤ round-off bound 8·H·(d + 2)·ε·scale, scale = max(‖x‖∞, ‖b‖∞, 1) ·
// (1 + γH‖A‖): each of the H steps rounds the d-term gradient sums and the update, and both
// sides (samplers and the matrix powers of the closed form) incur such errors.
TEST(Engine, FedAvgWithoutNoiseIsTheDeterministicRoundMap) {
  const int d = 6, n = 4, h = 5;
  const auto q = quadratic(d, n, 0.0);
  const theory::RunSetting step{0.15, h};
  const theory::AffineRoundMap map = theory::fedavg_round_map(q, step);
  const Matrix start = 3.0 * spread_start(d, 16);
  ChainEnsemble e(q, options(Algorithm::fedavg, step.gamma, h), start);
  e.advance(1);
  const Matrix expected = (map.transition() * start).colwise() + map.gamma * map.r;
  const double error = (e.state() - expected).cwiseAbs().maxCoeff();
  double scale = std::max(1.0, start.cwiseAbs().maxCoeff());
  for (int c = 0; c < n; ++c) scale = std::max(scale, q.client(c).optimum.cwiseAbs().maxCoeff());
  scale *= 1.0 + step.gamma * h * q.smoothness();
  const double tol = 8.0 * h * (d + 2) * kEps * scale;
  fmt::print("zero-noise round map: max error {:.3g}, round-off bound {:.3g}\n", error, tol);
  RecordProperty("max_error", fmt::format("{:.3g}", error));
  EXPECT_LE(error, tol);
}

// Statement (F5): one round of FedAvg on a quadratic with additive noise N(0, S_c) maps x₀ to
// N(M x₀ + r, Q), Q = (γ²/N²) Σ_c Σ_h (I − γA_c)^h S_c (I − γA_c)^h.
// Setting: d = 3, N = 3, H = 4, γ = 0.2, K = 40000 chains from the same x₀.
// Decision: expect_moments with α = 1e-3 (fixed seed, so the outcome is reproducible).
TEST(Engine, OneQuadraticRoundHasTheExactMeanAndCovariance) {
  const auto q = quadratic(3, 3, 2.0);
  const theory::RunSetting step{0.2, 4};
  const theory::AffineRoundMap map = theory::fedavg_round_map(q, step);
  const Vector x0 = Vector::LinSpaced(3, -1.0, 2.0);
  ChainEnsemble e(q, options(Algorithm::fedavg, step.gamma, step.local_steps, 2024), x0, 40000);
  e.advance(1);
  expect_moments(e.state(), map.transition() * x0 + map.gamma * map.r, map.gamma * map.g, 1e-3,
                 "quadratic one round (F5)");
}

// --- Divergence ---------------------------------------------------------------------------------

// Statement (F5): no stationary law when the spectral radius of M is ≥ 1 (here H = 1 and
// γ = 2.5/λ_max(A), so |1 − γλ_max| = 1.5). simulate() must stop and report where, with no
// statistics; at γ = 0.5/L the same run must not be flagged.
TEST(Engine, DivergenceIsDetectedWhenThereIsNoStationaryLaw) {
  const auto q = quadratic(3, 1, 1.0);
  const double l = q.smoothness();
  const double radius =
      Eigen::EigenSolver<Matrix>(theory::fedavg_round_map(q, {2.5 / l, 1}).transition())
          .eigenvalues()
          .cwiseAbs()
          .maxCoeff();
  ASSERT_GT(radius, 1.0) << "setting must have no stationary law";
  SimulationSpec spec;
  spec.step = {2.5 / l, 1};
  spec.chains = 20;
  spec.rounds = 500;
  spec.burn_in = 10;
  const SimulationResult bad = simulate(q, spec);
  fmt::print("divergence: {}\n", bad.divergence);
  EXPECT_TRUE(bad.diverged);
  EXPECT_GE(bad.divergence_round, 1);
  EXPECT_LT(bad.divergence_round, spec.rounds);
  EXPECT_GE(bad.divergence_chain, 0);
  EXPECT_EQ(bad.moments.samples, 0);
  EXPECT_FALSE(bad.divergence.empty());

  spec.step = {0.5 / l, 1};
  const SimulationResult good = simulate(q, spec);
  EXPECT_FALSE(good.diverged) << good.divergence;
  EXPECT_TRUE(good.moments.mean.allFinite());
}

}  // namespace
}  // namespace fedverify::estimators
