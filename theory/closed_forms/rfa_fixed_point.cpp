// RFA's fixed point and (A6)'s root; see rfa_fixed_point.hpp.
#include "theory/closed_forms/rfa_fixed_point.hpp"

#include <fmt/format.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::theory {

Vector geometric_median_root(const Problem& p) {
  constexpr int kMaxIterations = 200;
  constexpr double kTolerance = 1e-14;  // on ‖Σ_c p_c u_c‖, a sum of unit vectors
  const int d = p.dim();
  // F(x) = Σ_c p_c u_c, u_c = ∇f_c/‖∇f_c‖, and its Jacobian Σ_c p_c (I − u_c u_cᵀ)∇²f_c/‖∇f_c‖.
  const auto field = [&](const Vector& x, Matrix* jacobian) {
    Vector f = Vector::Zero(d);
    if (jacobian != nullptr) *jacobian = Matrix::Zero(d, d);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector g = p.gradient(c, x);
      const double norm = g.norm();
      if (norm == 0.0) {
        throw InputError(fmt::format(
            "--problem: client {}'s gradient vanishes at a point of the median's root search "
            "(THEORY (A6) needs every ‖∇f_c‖ > 0)",
            c));
      }
      const Vector u = g / norm;
      f += p.weight(c) * u;
      if (jacobian != nullptr) {
        *jacobian +=
            p.weight(c) * (Matrix::Identity(d, d) - u * u.transpose()) * p.hessian(c, x) / norm;
      }
    }
    return f;
  };
  // Damped Newton from x* (the mean's root): F is bounded, so a full step may overshoot far;
  // halve it until ‖F‖ decreases (Armijo with 1e-4).
  Vector x = minimizer(p);
  Matrix jacobian;
  Vector f = field(x, &jacobian);
  for (int it = 0; it < kMaxIterations && f.norm() > kTolerance; ++it) {
    const Vector step = jacobian.partialPivLu().solve(f);
    double t = 1.0;
    Vector trial = x - step;
    Vector f_trial = field(trial, nullptr);
    while (!(f_trial.norm() <= (1.0 - 1e-4 * t) * f.norm()) && t > 1e-12) {
      t /= 2;
      trial = x - t * step;
      f_trial = field(trial, nullptr);
    }
    x = trial;
    f = field(x, &jacobian);
  }
  if (!(f.norm() <= kTolerance)) {
    throw InputError(
        "--problem: Newton's method for the root of the clients' gradient median (THEORY (A6)) "
        "did not converge");
  }
  return x;
}

Vector rfa_fixed_point(const Problem& p, double gamma, int steps, int iterations, double nu) {
  constexpr int kMaxIterations = 200;
  const int d = p.dim(), n = p.num_clients();
  const auto residual = [&](const Vector& x) {
    Matrix y(d, n);
    for (int c = 0; c < n; ++c) {
      Vector yc = x;
      for (int h = 0; h < steps; ++h) yc -= gamma * p.gradient(c, yc);
      y.col(c) = yc;
    }
    return Vector(geometric_median(y, Vector::Ones(n), iterations, nu) - x);
  };
  Vector x = geometric_median_root(p);
  for (int it = 0; it < kMaxIterations; ++it) {
    const Vector f = residual(x);
    if (!f.allFinite()) break;
    if (f.norm() <= 1e-14 * (x.norm() + 1.0)) return x;
    const double h = 1e-6 * (x.norm() + 1.0);
    Matrix jacobian(d, d);
    for (int j = 0; j < d; ++j) {
      Vector e = Vector::Zero(d);
      e(j) = h;
      jacobian.col(j) = (residual(x + e) - residual(x - e)) / (2 * h);
    }
    x -= jacobian.partialPivLu().solve(f);
  }
  throw InputError(fmt::format(
      "--gamma: RFA's deterministic fixed point at γ = {} was not found by Newton's method",
      gamma));
}

}  // namespace fedverify::theory
