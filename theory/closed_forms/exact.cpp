#include "theory/closed_forms/exact.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/linalg.hpp"
#include "theory/closed_forms/lyapunov.hpp"

namespace fedverify::theory {

ExactMoments exact_moments(const QuadraticProblem& q, Algorithm algorithm, const RunSetting& s) {
  const AlgorithmTheory& closed_forms = algorithm_theory(algorithm);  // "--algo: none" first
  validate(algorithm, s);
  require_client_weights(describe(algorithm), q.equal_weights());
  return closed_forms.exact(q, s);
}

LocalSteps::LocalSteps(const Matrix& hessian, double gamma, int h) : steps(h) {
  const Eigen::SelfAdjointEigenSolver<Matrix> es(hessian);
  v = es.eigenvectors();
  a = es.eigenvalues();
  beta = Vector::Ones(a.size()) - gamma * a;
}

Matrix LocalSteps::in_basis(const Vector& diag) const {
  return v * diag.asDiagonal() * v.transpose();
}

GeometricSeries geometric_series_loop(double q, int steps) {
  GeometricSeries g;
  for (int h = 0; h < steps; ++h) {
    g.sum += g.power;
    g.power *= q;
  }
  return g;
}

GeometricSeries geometric_series_closed_form(double q, int steps) {
  const double h = steps;
  GeometricSeries g;
  g.power = std::pow(q, h);
  if (q == 1.0) {
    g.sum = h;
  } else if (q > 0.0) {
    // (1 − q^H)/(1 − q) = −expm1(H log1p(−δ))/δ with δ = 1 − q (exact for q ∈ [½, 2]): no
    // cancellation when q^H is close to 1.
    const double delta = 1.0 - q;
    g.sum = -std::expm1(h * std::log1p(-delta)) / delta;
  } else {
    g.sum = (1.0 - g.power) / (1.0 - q);  // 1 − q ≥ 1: nothing cancels
  }
  return g;
}

GeometricSeries geometric_series(double q, int steps) {
  return steps < kGeometricLoopSteps ? geometric_series_loop(q, steps)
                                     : geometric_series_closed_form(q, steps);
}

Vector LocalSteps::geometric() const {
  Vector s(a.size());
  for (Eigen::Index i = 0; i < a.size(); ++i) s(i) = geometric_series(beta(i), steps).sum;
  return s;
}

Matrix LocalSteps::p() const { return in_basis(geometric()); }

Matrix LocalSteps::p_a() const { return in_basis(geometric().cwiseProduct(a)); }

Matrix LocalSteps::b_power() const { return in_basis(beta.array().pow(steps).matrix()); }

Matrix LocalSteps::noise_sum_in_basis(Matrix inner, const Vector& beta2) const {
  for (Eigen::Index j = 0; j < inner.cols(); ++j) {
    for (Eigen::Index i = 0; i < inner.rows(); ++i) {
      inner(i, j) *= geometric_series(beta(i) * beta2(j), steps).sum;
    }
  }
  return inner;
}

Matrix LocalSteps::noise_sum(const Matrix& s, const Vector& beta2) const {
  return v * noise_sum_in_basis(v.transpose() * s * v, beta2) * v.transpose();
}

void require_stationary(double rho, const RunSetting& s, const char* what) {
  if (!(rho < 1.0)) {
    throw InputError(fmt::format(
        "--gamma: no stationary distribution for {} at gamma = {} with H = {} (spectral radius "
        "of the round map = {:.6g} >= 1); decrease gamma",
        what, s.gamma, s.local_steps, rho));
  }
}

void require_finite(const AffineRoundMap& map, const RunSetting& s, const char* what) {
  if (!map.d.allFinite() || !map.g.allFinite() || !map.r.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of {} at gamma = {} with H = {} overflows double precision (the "
        "problem's matrices are too large for this step); decrease gamma or rescale the problem",
        what, s.gamma, s.local_steps));
  }
}

Matrix stationary_covariance(const Matrix& d, const Matrix& g, const RunSetting& s,
                             const char* what) {
  try {
    return discrete_lyapunov_solve(d, s.gamma, g);
  } catch (const std::domain_error&) {
    throw InputError(fmt::format(
        "--gamma: no stationary distribution for {} at gamma = {} with H = {} (the round map "
        "has an eigenvalue on or outside the unit circle in double precision); decrease gamma",
        what, s.gamma, s.local_steps));
  }
}

Matrix stationary_covariance(const AffineRoundMap& map, const RunSetting& s, const char* what) {
  return stationary_covariance(map.d, map.g, s, what);
}

Matrix long_run_covariance(const AffineRoundMap& map) {
  // (I − M)⁻¹ Q (I − M)⁻ᵀ with I − M = γD, Q = γG: D⁻¹ G D⁻ᵀ / γ (THEORY F5a).
  const Eigen::PartialPivLU<Matrix> lu(map.d);
  const Matrix left = lu.solve(map.g);                         // D⁻¹ G
  const Matrix both = lu.solve(left.transpose()).transpose();  // D⁻¹ G D⁻ᵀ
  return (both + both.transpose()) / (2.0 * map.gamma);
}

Matrix time_average_covariance(const AffineRoundMap& map, const Matrix& stationary_cov,
                               int rounds) {
  if (rounds < 1) throw InputError(fmt::format("rounds: must be >= 1, got {}", rounds));
  const Matrix m = map.transition();
  const Eigen::Index n = m.rows();
  Matrix power = Matrix::Identity(n, n);  // Mⁿ by binary powering
  Matrix base = m;
  for (int e = rounds; e > 0; e >>= 1) {
    if ((e & 1) != 0) power = power * base;
    base = base * base;
  }
  // E = M (I − M)⁻² (I − Mⁿ) Σ = M D⁻² (I − Mⁿ) Σ / γ² (THEORY F5a).
  const Eigen::PartialPivLU<Matrix> lu(map.d);
  const Matrix e = m * lu.solve(lu.solve((Matrix::Identity(n, n) - power) * stationary_cov)) /
                   (map.gamma * map.gamma);
  return long_run_covariance(map) - (e + e.transpose()) / static_cast<double>(rounds);
}

double symmetric_spectral_radius(const Matrix& d, double gamma) {
  const Vector ev = Eigen::SelfAdjointEigenSolver<Matrix>(d, Eigen::EigenvaluesOnly).eigenvalues();
  return (Vector::Ones(ev.size()) - gamma * ev).cwiseAbs().maxCoeff();
}

ExactMoments symmetric_map_moments(const AffineRoundMap& map, const RunSetting& setting,
                                   const char* what) {
  require_finite(map, setting, what);
  ExactMoments out;
  out.spectral_radius = symmetric_spectral_radius(map.d, setting.gamma);
  require_stationary(out.spectral_radius, setting, what);
  out.mean = map.d.ldlt().solve(map.r);                                 // m = (I − M)⁻¹ r
  out.cov = symmetric_part(stationary_covariance(map, setting, what));  // Σ = MΣMᵀ + Q
  return out;
}

Matrix helmert_basis(int n) {
  Matrix e = Matrix::Zero(n, n - 1);
  for (int k = 1; k < n; ++k) {
    const double norm = std::sqrt(static_cast<double>(k) * (k + 1));
    for (int i = 0; i < k; ++i) e(i, k - 1) = 1.0 / norm;
    e(k, k - 1) = -static_cast<double>(k) / norm;
  }
  return e;
}

}  // namespace fedverify::theory
