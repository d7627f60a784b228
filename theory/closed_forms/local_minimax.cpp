#include "theory/closed_forms/local_minimax.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedverify::theory {
namespace {

// Q = (1/N) Σ_i C_iᵀC_i and the right-hand side (1/N) Σ_i C_iᵀ(D_iθ + e_i) of Qτ*(θ) = ….
Matrix tau_precision(const PlGame& game) {
  Matrix q = Matrix::Zero(game.tau_dim(), game.tau_dim());
  for (int i = 0; i < game.num_clients(); ++i)
    q += game.client(i).c.transpose() * game.client(i).c / game.num_clients();
  return q;
}

Vector joined(const Vector& theta, const Vector& tau) {
  Vector z(theta.size() + tau.size());
  z << theta, tau;
  return z;
}

double smallest_eigenvalue(const Matrix& symmetric) {
  return Eigen::SelfAdjointEigenSolver<Matrix>(0.5 * (symmetric + symmetric.transpose()),
                                               Eigen::EigenvaluesOnly)
      .eigenvalues()(0);
}

}  // namespace

Vector best_response(const PlGame& game, const Vector& theta) {
  Vector rhs = Vector::Zero(game.tau_dim());
  for (int i = 0; i < game.num_clients(); ++i) {
    const auto& c = game.client(i);
    rhs += c.c.transpose() * (c.d * theta + c.e) / game.num_clients();
  }
  return tau_precision(game).llt().solve(rhs);
}

Vector reduced_gradient(const PlGame& game, const Vector& theta) {
  return game.mean_operator(joined(theta, best_response(game, theta))).head(game.theta_dim());
}

Matrix reduced_hessian(const PlGame& game, const Vector& theta) {
  const int p = game.theta_dim(), q = game.tau_dim();
  const Matrix j = game.mean_jacobian(joined(theta, best_response(game, theta)));
  // J̄ = [H B; −Bᵀ Q]: S = H + B Q⁻¹ Bᵀ.
  const Matrix b = j.topRightCorner(p, q);
  return j.topLeftCorner(p, p) + b * j.bottomRightCorner(q, q).llt().solve(b.transpose());
}

MinimaxPoint second_order_test(const PlGame& game, const Vector& z) {
  const int p = game.theta_dim(), q = game.tau_dim();
  const Matrix j = game.mean_jacobian(z);
  const Matrix b = j.topRightCorner(p, q);
  const Matrix q_block = j.bottomRightCorner(q, q);
  MinimaxPoint out;
  out.z = z;
  out.residual = game.mean_operator(z).norm();
  out.tau_curvature = -smallest_eigenvalue(q_block);  // ∇²_ττ f̄ = −Q
  out.schur_min =
      smallest_eigenvalue(j.topLeftCorner(p, p) + b * q_block.llt().solve(b.transpose()));
  out.theta_curvature = smallest_eigenvalue(j.topLeftCorner(p, p));
  return out;
}

std::vector<MinimaxPoint> stationary_points(const PlGame& game, double half_width, int grid) {
  const int p = game.theta_dim();
  std::vector<Vector> roots;
  long starts = 1;
  for (int k = 0; k < p; ++k) starts *= grid;
  for (long s = 0; s < starts; ++s) {
    Vector theta(p);
    long rest = s;
    for (int k = 0; k < p; ++k) {
      theta(k) = -half_width + 2.0 * half_width * static_cast<double>(rest % grid) / (grid - 1);
      rest /= grid;
    }
    bool converged = false;
    for (int it = 0; it < 100 && !converged; ++it) {
      const Vector g = reduced_gradient(game, theta);
      const Vector step = reduced_hessian(game, theta).fullPivLu().solve(g);
      if (!step.allFinite()) break;
      theta -= step;
      converged = step.norm() <= 1e-14 * (1.0 + theta.norm()) &&
                  reduced_gradient(game, theta).norm() <= 1e-13 * (1.0 + theta.norm());
    }
    if (!converged || theta.cwiseAbs().maxCoeff() > half_width) continue;
    const bool known = std::any_of(roots.begin(), roots.end(),
                                   [&](const Vector& r) { return (r - theta).norm() <= 1e-8; });
    if (!known) roots.push_back(theta);
  }
  std::sort(roots.begin(), roots.end(), [](const Vector& a, const Vector& b) {
    return std::lexicographical_compare(a.data(), a.data() + a.size(), b.data(),
                                        b.data() + b.size());
  });
  std::vector<MinimaxPoint> out;
  out.reserve(roots.size());
  for (const Vector& theta : roots)
    out.push_back(second_order_test(game, joined(theta, best_response(game, theta))));
  return out;
}

double gda_stability_margin(const Matrix& jacobian, int theta_dim, double ratio) {
  Vector w = Vector::Ones(jacobian.rows());
  w.tail(jacobian.rows() - theta_dim).setConstant(ratio);
  const Eigen::VectorXcd mu =
      Eigen::EigenSolver<Matrix>(w.asDiagonal() * jacobian, false).eigenvalues();
  return mu.real().minCoeff();
}

double timescale_threshold(const Matrix& jacobian, int theta_dim, double max_ratio) {
  if (gda_stability_margin(jacobian, theta_dim, max_ratio) <= 0)
    return std::numeric_limits<double>::infinity();
  constexpr double kFactor = 1.02, kSmallest = 1e-6;
  double stable = max_ratio;
  while (stable > kSmallest) {
    const double lower = stable / kFactor;
    if (gda_stability_margin(jacobian, theta_dim, lower) <= 0) {
      double unstable = lower;
      while (stable - unstable > 1e-10 * stable) {
        const double mid = 0.5 * (stable + unstable);
        (gda_stability_margin(jacobian, theta_dim, mid) > 0 ? stable : unstable) = mid;
      }
      return stable;
    }
    stable = lower;
  }
  return 0.0;
}

}  // namespace fedverify::theory
