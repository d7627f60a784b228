// Client ε-equilibria of quadratic games (THEORY M3). Expected values are built independently of
// the code under test:
// - a hand-built 1-d game whose best responses and gap are written out by hand;
// - the duality gap by brute force: the best responses found by gradient ascent/descent on the
//   client's own objective (no linear solve), iterated until the step is below 1e-14;
// - the sandwich ‖F‖²/(2L) ≤ gap ≤ ‖F‖²/(2μ) and its sharpness (an eigenvector direction);
// - the dissimilarities from their definitions (Assumptions 3–4) on games built to have them.
// Round-off: the gap is a difference of objective values of size S (the scale below), each
// computed with a few ε relative error per term, and the solves add n·ε·κ: kSafety·n·ε·κ·S.
#include "theory/closed_forms/game_equilibria.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/game_generator.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

using verify::kEps;
using verify::kSafety;

QuadraticGameClient scalar_client(double a, double b, double c, double a_lin, double c_lin) {
  QuadraticGameClient cl;
  cl.a = Matrix::Constant(1, 1, a);
  cl.b = Matrix::Constant(1, 1, b);
  cl.c = Matrix::Constant(1, 1, c);
  cl.a_linear = Vector::Constant(1, a_lin);
  cl.c_linear = Vector::Constant(1, c_lin);
  cl.noise_cov = Matrix::Zero(2, 2);
  return cl;
}

// Scale of the objective values near z: ½‖M‖‖z‖² + ‖m‖‖z‖ (+1).
double value_scale(const QuadraticGame& g, int i, const Vector& z) {
  return 1.0 + 0.5 * g.operator_matrix(i).norm() * z.squaredNorm() +
         g.operator_offset(i).norm() * z.norm();
}

double condition(const Matrix& m) {
  const Vector ev = Eigen::SelfAdjointEigenSolver<Matrix>(m).eigenvalues();
  return ev(ev.size() - 1) / ev(0);
}

TEST(GameEquilibria, OneDimensionalGameByHand) {
  // f(θ, τ) = θ² + 0.5θτ − 0.75τ² + 0.3θ − 0.2τ (A = 2, B = 0.5, C = 1.5, a = 0.3, c = 0.2).
  const QuadraticGame g({scalar_client(2.0, 0.5, 1.5, 0.3, 0.2)});
  const double theta = 0.7, tau = -0.4;
  // max_τ' f(θ, τ'): τ' = (Bθ − c)/C; min_θ' f(θ', τ): θ' = −(Bτ + a)/A.
  const double tau_best = (0.5 * theta - 0.2) / 1.5;
  const double theta_best = -(0.5 * tau + 0.3) / 2.0;
  auto f = [](double th, double ta) {
    return th * th + 0.5 * th * ta - 0.75 * ta * ta + 0.3 * th - 0.2 * ta;
  };
  const double expected = f(theta, tau_best) - f(theta_best, tau);
  const Vector z{{theta, tau}};
  EXPECT_NEAR(client_objective(g, 0, z.head(1), z.tail(1)), f(theta, tau), 4 * kEps);
  EXPECT_NEAR(client_gap_by_best_responses(g, 0, z), expected, 16 * kEps);
  EXPECT_NEAR(client_gap(g, 0, z), expected, 16 * kEps);
  // By hand, the quadratic form: g_θ = Aθ + Bτ + a, g_τ = −(Bθ − Cτ − c); gap = g_θ²/(2A) +
  // g_τ²/(2C).
  const double g_theta = 2.0 * theta + 0.5 * tau + 0.3;
  const double g_tau = -(0.5 * theta - 1.5 * tau - 0.2);
  EXPECT_NEAR(expected, g_theta * g_theta / 4.0 + g_tau * g_tau / 3.0, 16 * kEps);
}

// Brute force: best responses by gradient steps 1/λ_max on the client's own objective.
double brute_force_gap(const QuadraticGame& g, int i, const Vector& z) {
  const auto& c = g.client(i);
  const int p = g.theta_dim(), q = g.tau_dim();
  const Vector theta = z.head(p), tau = z.tail(q);
  const double step_tau = 1.0 / Eigen::SelfAdjointEigenSolver<Matrix>(c.c).eigenvalues()(q - 1);
  const double step_theta = 1.0 / Eigen::SelfAdjointEigenSolver<Matrix>(c.a).eigenvalues()(p - 1);
  Vector t = Vector::Zero(q), th = Vector::Zero(p);
  for (int k = 0; k < 100000; ++k) {
    const Vector grad = c.b.transpose() * theta - c.c * t - c.c_linear;  // ∇_τ f_i(θ, t)
    t += step_tau * grad;
    if (step_tau * grad.norm() < 1e-14 * (1.0 + t.norm())) break;
  }
  for (int k = 0; k < 100000; ++k) {
    const Vector grad = c.a * th + c.b * tau + c.a_linear;  // ∇_θ f_i(th, τ)
    th -= step_theta * grad;
    if (step_theta * grad.norm() < 1e-14 * (1.0 + th.norm())) break;
  }
  return client_objective(g, i, theta, t) - client_objective(g, i, th, tau);
}

TEST(GameEquilibria, GapEqualsBruteForceBestResponses) {
  const QuadraticGame g = verify::small_game();
  estimators::Stream s(3, estimators::Purpose::test);
  for (int i = 0; i < g.num_clients(); ++i) {
    for (int trial = 0; trial < 3; ++trial) {
      const Vector z = trial == 0 ? g.equilibrium() : verify::random_matrix(s, g.dim(), 1).col(0);
      const double kappa = std::max(condition(g.client(i).a), condition(g.client(i).c));
      // The iteration stops at steps of 1e-14 relative: the value is then within κ·1e-14 of the
      // optimum's scale; the solves within n ε κ.
      const double tol = kSafety * g.dim() * kappa * (kEps + 1e-14) * value_scale(g, i, z);
      const double brute = brute_force_gap(g, i, z);
      EXPECT_NEAR(client_gap_by_best_responses(g, i, z), brute, tol) << "client " << i;
      EXPECT_NEAR(client_gap(g, i, z), brute, tol) << "client " << i;
      EXPECT_GT(brute, 0.0);
    }
  }
}

TEST(GameEquilibria, GapIsSandwichedAndTheConstantHalfIsSharp) {
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    QuadraticGameGeneratorOptions o;
    o.theta_dim = 3;
    o.tau_dim = 2;
    o.clients = 4;
    o.seed = seed;
    const QuadraticGame g = generate_quadratic_game(o);
    for (int i = 0; i < g.num_clients(); ++i) {
      const ClientEpsilon e = client_epsilon(g, i);
      const double tol = kSafety * g.dim() * o.condition * kEps * e.bound;
      EXPECT_LE(e.lower, e.gap + tol);
      EXPECT_LE(e.gap, e.bound + tol);
      EXPECT_GT(e.gap, 0.0);
    }
  }
  // Sharp: two 1-d clients with A_i = C_i = μ and no coupling; F_i(z*) = μ(z* − z_i*), so
  // gap_i = ‖F_i‖²/(2μ) = ζ_i²/(2μ) exactly.
  const double mu = 0.3;
  const QuadraticGame g({scalar_client(mu, 0.0, mu, -mu * 1.0, -mu * 2.0),
                         scalar_client(mu, 0.0, mu, -mu * -1.0, -mu * 0.5)});
  for (int i = 0; i < 2; ++i) {
    const ClientEpsilon e = client_epsilon(g, i);
    EXPECT_NEAR(e.gap, e.bound, 16 * kEps * e.bound);
    EXPECT_NEAR(e.gap * e.mu / (e.residual * e.residual), kGapConstant, 16 * kEps);
  }
}

TEST(GameEquilibria, DissimilaritiesFromTheirDefinitions) {
  const QuadraticGame g = verify::small_game();
  const int n = g.num_clients(), p = g.theta_dim();
  const Vector& z = g.equilibrium();
  Vector f_sum = Vector::Zero(g.dim());
  for (int i = 0; i < n; ++i) f_sum += g.client_operator(i, z);
  const double zero = kSafety * g.dim() * kEps * (1.0 + z.norm()) * 10.0;
  ASSERT_LT(f_sum.norm() / n, zero);  // z* is the federated equilibrium
  for (int i = 0; i < n; ++i) {
    const ClientEpsilon e = client_epsilon(g, i);
    const Vector f = g.client_operator(i, z);
    EXPECT_NEAR(e.residual, f.norm(), zero);
    EXPECT_NEAR(e.zeta_theta, f.head(p).norm(), zero);
    EXPECT_NEAR(e.zeta_tau, f.tail(g.tau_dim()).norm(), zero);
    EXPECT_NEAR(e.zeta_theta * e.zeta_theta + e.zeta_tau * e.zeta_tau, e.residual * e.residual,
                zero * e.residual);
    // ‖M_i − M̄‖ ≤ max(ρ_θ, ρ_τ) + ρ_θτ, and at least each block's norm.
    EXPECT_LE(e.rho, std::max(e.rho_theta, e.rho_tau) + e.rho_theta_tau + 1e-14);
    EXPECT_GE(e.rho + 1e-14, std::max({e.rho_theta, e.rho_tau, e.rho_theta_tau}));
    // (M3d) at any z₀ bounds the gap, and at z₀ = z* it is (M3c).
    estimators::Stream s(11 + i, estimators::Purpose::test);
    for (int trial = 0; trial < 5; ++trial) {
      const Vector z0 = 3.0 * verify::random_matrix(s, g.dim(), 1).col(0);
      EXPECT_LE(e.gap, gap_bound_from_point(g, i, z0) * (1 + 1e-12));
    }
    EXPECT_NEAR(gap_bound_from_point(g, i, z), e.bound, 1e-12 * e.bound);
  }
}

TEST(GameEquilibria, IdenticalHessianBlocksHaveAUniformGradientDissimilarity) {
  // Clients differing only in their linear terms: ρ_i = 0, and F_i − F̄ is the same at every
  // point (Assumption 3's uniform bound is finite); with different blocks it grows with ‖z‖.
  std::vector<QuadraticGameClient> clients = {verify::game_client(0), verify::game_client(0)};
  clients[1].a_linear = Vector{{0.4, -1.0}};
  const QuadraticGame same(clients);
  const QuadraticGame different = verify::small_game();
  const Vector far = Vector::Constant(4, 100.0);
  EXPECT_EQ(client_epsilon(same, 0).rho, 0.0);
  EXPECT_NEAR(gradient_dissimilarity(same, 0, far),
              gradient_dissimilarity(same, 0, Vector::Zero(4)), 1e-12);
  EXPECT_GT(client_epsilon(different, 0).rho, 0.1);
  EXPECT_GT(gradient_dissimilarity(different, 0, far),
            10.0 * gradient_dissimilarity(different, 0, Vector::Zero(4)));
}

}  // namespace
}  // namespace fedverify::theory
