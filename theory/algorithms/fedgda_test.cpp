// FedGDA's closed forms on quadratic games (THEORY M1, M2).
//
// - The exact stationary moments equal a brute-force iteration of the moment recursion, client by
//   client and local step by local step (another computation: no geometric sums, no divided form,
//   no Lyapunov solver), to kAgree = 1e-10 relative: the iteration stops when its increments are
//   below 1e-15 relative, and the Lyapunov solve is backward stable (κ ≈ 10 here).
// - R = 1 and identical clients have no fixed-point bias: the exact mean is z* to round-off.
// - (M2)'s remainder order is checked in verify/fedgda_theorems_test.cpp (it needs the slope
//   statistic of estimators/statistics).
// - Bilinear games diverge under simultaneous GDA with R = 1: spectral radius √(1 + α²σ²) > 1.
#include "theory/algorithms/fedgda.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/game_generator.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

std::string refusal(std::vector<QuadraticGameClient> clients) {
  try {
    QuadraticGame g(std::move(clients));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(QuadraticGame, RefusalsNameTheField) {
  auto not_psd = verify::game_client(1);
  not_psd.c(0, 0) = -1.0;
  EXPECT_EQ(refusal({verify::game_client(0), not_psd})
                .rfind("clients[1].C: not positive semi-definite", 0),
            0u);
  auto shape = verify::game_client(0);
  shape.b = Matrix::Zero(2, 3);
  EXPECT_EQ(refusal({shape}).rfind("clients[0].B: shape 2x3", 0), 0u);
  auto singular = verify::game_client(0);  // no coupling and no curvature in θ: θ is not determined
  singular.a.setZero();
  singular.b.setZero();
  EXPECT_NE(refusal({singular}).find("no unique equilibrium"), std::string::npos);
  EXPECT_EQ(refusal({}), "clients: need at least one client");
}

// The moments of z' from (μ, Σ): every client's R steps applied to the mean and to the joint
// covariance one at a time, then the average of the clients' end points.
ExactMoments brute_force(const QuadraticGame& g, const GdaSetting& s) {
  const int n = g.dim(), p = g.theta_dim();
  Vector step(n);
  step.head(p).setConstant(s.alpha_theta);
  step.tail(n - p).setConstant(s.alpha_tau);
  const Matrix d = step.asDiagonal();
  std::vector<Matrix> b_power, noise;
  std::vector<Vector> offset;
  for (int i = 0; i < g.num_clients(); ++i) {
    const Matrix b = Matrix::Identity(n, n) - d * g.operator_matrix(i);
    Matrix power = Matrix::Identity(n, n), q = Matrix::Zero(n, n);
    Vector c = Vector::Zero(n);
    for (int h = 0; h < s.local_steps; ++h) {  // z ← B z − D m_i − D ξ
      power = b * power;
      c = b * c - d * g.operator_offset(i);
      q = b * q * b.transpose() + d * g.client(i).noise_cov * d;
    }
    b_power.push_back(power);
    noise.push_back(q);
    offset.push_back(c);
  }
  const double clients = g.num_clients();
  Vector mean = Vector::Zero(n);
  Matrix cov = Matrix::Zero(n, n);
  for (int round = 0; round < 100000; ++round) {
    Vector next_mean = Vector::Zero(n);
    Matrix m = Matrix::Zero(n, n), q = Matrix::Zero(n, n);
    for (int i = 0; i < g.num_clients(); ++i) {
      next_mean += (b_power[i] * mean + offset[i]) / clients;
      m += b_power[i] / clients;
      q += noise[i] / (clients * clients);
    }
    const Matrix next_cov = m * cov * m.transpose() + q;
    const bool settled = (next_mean - mean).norm() <= 1e-16 * next_mean.norm() &&
                         (next_cov - cov).norm() <= 1e-16 * next_cov.norm();
    mean = next_mean;
    cov = next_cov;
    if (settled && round > 10) break;
  }
  return {mean, cov, 0.0};
}

TEST(FedgdaExact, EqualsTheBruteForceMomentIteration) {
  constexpr double kAgree = 1e-10;
  const QuadraticGame g = verify::small_game();
  for (const GdaSetting& s :
       {GdaSetting{0.1, 0.1, 1}, GdaSetting{0.05, 0.2, 4}, GdaSetting{0.2, 0.05, 3}}) {
    const ExactMoments exact = fedgda_exact(g, s);
    const ExactMoments brute = brute_force(g, s);
    EXPECT_LE((exact.mean - brute.mean).norm(), kAgree * brute.mean.norm());
    EXPECT_LE((exact.cov - brute.cov).norm(), kAgree * brute.cov.norm());
    EXPECT_LT(exact.spectral_radius, 1.0);
  }
}

TEST(FedgdaExact, NoBiasForOneLocalStepOrIdenticalClients) {
  constexpr double kRoundOff = 1e-13;  // a 4 × 4 solve of condition ≈ 10, relative to ‖z*‖ ≈ 1
  const QuadraticGame g = verify::small_game();
  EXPECT_LE((fedgda_exact(g, {0.1, 0.1, 1}).mean - g.equilibrium()).norm(),
            kRoundOff * g.equilibrium().norm());
  const QuadraticGame same(
      {verify::game_client(1), verify::game_client(1), verify::game_client(1)});
  EXPECT_LE((fedgda_exact(same, {0.1, 0.05, 5}).mean - same.equilibrium()).norm(),
            kRoundOff * same.equilibrium().norm());
  EXPECT_GT((fedgda_exact(g, {0.1, 0.1, 5}).mean - g.equilibrium()).norm(), 1e-3);
}

TEST(FedgdaStability, SimultaneousGdaDivergesOnBilinearGames) {
  QuadraticGameClient c;
  c.a = Matrix::Zero(1, 1);
  c.c = Matrix::Zero(1, 1);
  c.b = Matrix{{2.0}};
  c.a_linear = Vector{{1.0}};
  c.c_linear = Vector{{0.5}};
  c.noise_cov = Matrix::Zero(2, 2);
  const QuadraticGame bilinear({c});
  for (double a : {1e-3, 0.1, 1.0}) {
    // M = I − α[0 2; −2 0] has eigenvalues 1 ± 2αi: modulus √(1 + 4α²).
    EXPECT_NEAR(fedgda_spectral_radius(bilinear, {a, a, 1}), std::sqrt(1 + 4 * a * a), 1e-12);
  }
  EXPECT_THROW(fedgda_exact(bilinear, {0.1, 0.1, 1}), InputError);
}

// (M7) against the spectral radius of the round map built from the clients' step matrices
// (fedgda_round_map: B_i = I − D M_i, another route): just below α₁,max the map contracts, just
// above it does not. The radius is 1 − O(α₁ Re μ · relative distance) near the limit, so a
// relative step of 1e-6 moves it by ≳ 1e-8, far above its round-off (≲ 1e-13).
TEST(FedgdaStepLimit, IsWhereTheOneStepRoundMapStopsContracting) {
  QuadraticGameGeneratorOptions o;
  o.theta_dim = 3;
  o.tau_dim = 2;
  o.clients = 4;
  o.seed = 9;
  const QuadraticGame g = generate_quadratic_game(o);
  for (double ratio : {0.1, 1.0, 10.0}) {
    const double limit = fedgda_step_limit(g, ratio);
    ASSERT_GT(limit, 0.0) << ratio;
    EXPECT_LT(fedgda_spectral_radius(g, {limit * (1 - 1e-6), ratio * limit * (1 - 1e-6), 1}), 1.0);
    EXPECT_GT(fedgda_spectral_radius(g, {limit * (1 + 1e-6), ratio * limit * (1 + 1e-6), 1}), 1.0);
  }
  // Bilinear (A = C = 0): no stable step, ρ = √(1 + α₁α₂σ_max²) (σ_max of B̄ = 2 here).
  auto c = verify::game_client(0);
  c.a.setZero();
  c.c.setZero();
  c.b << 2.0, 0.0, 0.0, 1.0;
  const QuadraticGame bilinear({c});
  EXPECT_EQ(fedgda_step_limit(bilinear, 3.0), 0.0);
  EXPECT_NEAR(fedgda_spectral_radius(bilinear, {0.1, 0.3, 1}), std::sqrt(1 + 0.1 * 0.3 * 4), 1e-12);
}

TEST(GameGenerator, SameOptionsSameGameAndHomogeneityMeansNoBias) {
  QuadraticGameGeneratorOptions o;
  o.theta_dim = 3;
  o.tau_dim = 2;
  o.clients = 4;
  o.seed = 5;
  const QuadraticGame a = generate_quadratic_game(o), b = generate_quadratic_game(o);
  for (int i = 0; i < a.num_clients(); ++i) EXPECT_EQ(a.operator_matrix(i), b.operator_matrix(i));
  EXPECT_GT((fedgda_exact(a, {0.05, 0.05, 5}).mean - a.equilibrium()).norm(), 1e-4);
  // Identical clients (no spread of blocks or optima): FedGDA's fixed point is z* (M2 vanishes).
  o.optimum_spread = 0.0;
  o.hessian_spread = 0.0;
  const QuadraticGame same = generate_quadratic_game(o);
  EXPECT_LE((fedgda_exact(same, {0.05, 0.05, 5}).mean - same.equilibrium()).norm(),
            1e-12 * (1.0 + same.equilibrium().norm()));
  o.coupling = -1.0;
  EXPECT_THROW(generate_quadratic_game(o), InputError);
}

}  // namespace
}  // namespace fedverify::theory
