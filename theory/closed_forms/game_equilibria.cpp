#include "theory/closed_forms/game_equilibria.hpp"

#include <algorithm>

namespace fedverify::theory {
namespace {

double spectral_norm(const Matrix& m) { return Eigen::JacobiSVD<Matrix>(m).singularValues()(0); }

Vector eigenvalues(const Matrix& m) {
  return Eigen::SelfAdjointEigenSolver<Matrix>(m, Eigen::EigenvaluesOnly).eigenvalues();
}

// F̄(z) = M̄ z + m̄ and M̄.
Matrix mean_operator_matrix(const QuadraticGame& g) {
  Matrix m = Matrix::Zero(g.dim(), g.dim());
  for (int i = 0; i < g.num_clients(); ++i) m += g.operator_matrix(i) / g.num_clients();
  return m;
}

Vector mean_operator(const QuadraticGame& g, const Vector& z) {
  Vector f = Vector::Zero(g.dim());
  for (int i = 0; i < g.num_clients(); ++i) f += g.client_operator(i, z) / g.num_clients();
  return f;
}

}  // namespace

double client_objective(const QuadraticGame& game, int client, const Vector& theta,
                        const Vector& tau) {
  const auto& c = game.client(client);
  return 0.5 * theta.dot(c.a * theta) + theta.dot(c.b * tau) - 0.5 * tau.dot(c.c * tau) +
         c.a_linear.dot(theta) - c.c_linear.dot(tau);
}

double client_gap_by_best_responses(const QuadraticGame& game, int client, const Vector& z) {
  const auto& c = game.client(client);
  const int p = game.theta_dim(), q = game.tau_dim();
  const Vector theta = z.head(p), tau = z.tail(q);
  // ∇_τ f_i(θ, τ') = B_iᵀθ − C_iτ' − c_i = 0 and ∇_θ f_i(θ', τ) = A_iθ' + B_iτ + a_i = 0.
  const Vector tau_best = c.c.llt().solve(c.b.transpose() * theta - c.c_linear);
  const Vector theta_best = c.a.llt().solve(-(c.b * tau) - c.a_linear);
  return client_objective(game, client, theta, tau_best) -
         client_objective(game, client, theta_best, tau);
}

// THEORY (M3b)
double client_gap(const QuadraticGame& game, int client, const Vector& z) {
  const auto& c = game.client(client);
  const int p = game.theta_dim(), q = game.tau_dim();
  const Vector f = game.client_operator(client, z);
  const Vector g_theta = f.head(p), g_tau = f.tail(q);
  return 0.5 * g_theta.dot(c.a.llt().solve(g_theta)) + 0.5 * g_tau.dot(c.c.llt().solve(g_tau));
}

// THEORY (M3c)
ClientEpsilon client_epsilon(const QuadraticGame& game, int client) {
  const auto& c = game.client(client);
  const int p = game.theta_dim(), q = game.tau_dim(), n = game.num_clients();
  const Vector& z = game.equilibrium();
  const Vector f = game.client_operator(client, z) - mean_operator(game, z);
  Matrix a_bar = Matrix::Zero(p, p), b_bar = Matrix::Zero(p, q), c_bar = Matrix::Zero(q, q);
  for (int i = 0; i < n; ++i) {
    a_bar += game.client(i).a / n;
    b_bar += game.client(i).b / n;
    c_bar += game.client(i).c / n;
  }
  ClientEpsilon e;
  e.residual = f.norm();
  e.zeta_theta = f.head(p).norm();
  e.zeta_tau = f.tail(q).norm();
  e.gap = client_gap(game, client, z);
  e.rho_theta = spectral_norm(c.a - a_bar);
  e.rho_tau = spectral_norm(c.c - c_bar);
  e.rho_theta_tau = spectral_norm(c.b - b_bar);
  e.rho = spectral_norm(game.operator_matrix(client) - mean_operator_matrix(game));
  const Vector ea = eigenvalues(c.a), ec = eigenvalues(c.c);
  e.mu = std::min(ea(0), ec(0));
  e.l = std::max(ea(p - 1), ec(q - 1));
  e.bound = kGapConstant * e.residual * e.residual / e.mu;
  e.lower = e.residual * e.residual / (2.0 * e.l);
  return e;
}

double gradient_dissimilarity(const QuadraticGame& game, int client, const Vector& z0) {
  return (game.client_operator(client, z0) - mean_operator(game, z0)).norm();
}

// THEORY (M3d)
double gap_bound_from_point(const QuadraticGame& game, int client, const Vector& z0) {
  const ClientEpsilon e = client_epsilon(game, client);
  const double zeta =
      gradient_dissimilarity(game, client, z0) + e.rho * (game.equilibrium() - z0).norm();
  return kGapConstant * zeta * zeta / e.mu;
}

}  // namespace fedverify::theory
