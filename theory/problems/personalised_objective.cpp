#include "theory/problems/personalised_objective.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimum.hpp"

namespace fedverify::theory {
namespace {

constexpr int kMaxNewtonIterations = 200;
// Newton stops at ‖n∇F(x)‖ ≤ 1e-13·max(‖n∇F(0)‖, (L + λ)·max(1, ‖x‖)): a few hundred ulps of
// the gradient's scale; the second term is the round-off floor of evaluating
// ∇f_i(x_i) + λ(x_i − x̄), whose Jacobian has norm ≤ L + λ.
constexpr double kGradientTolerance = 1e-13;
constexpr double kArmijo = 1e-4;  // sufficient-decrease constant of the backtracking search

// Hessian of n·F on the stacked vector: blockdiag ∇²f_i(x_i) + λ (I_n − 𝟙𝟙ᵀ/n) ⊗ I_d.
Matrix stacked_hessian(const Problem& problem, double lambda, const Matrix& x) {
  const int d = problem.dim();
  const int n = problem.num_clients();
  Matrix h = Matrix::Zero(n * d, n * d);
  for (int i = 0; i < n; ++i) {
    h.block(i * d, i * d, d, d) = problem.hessian(i, x.col(i));
    for (int j = 0; j < n; ++j) {
      h.block(i * d, j * d, d, d).diagonal().array() += lambda * ((i == j ? 1.0 : 0.0) - 1.0 / n);
    }
  }
  return h;
}

Matrix quadratic_optimum(const QuadraticProblem& q, double lambda) {
  const int d = q.dim();
  const int n = q.num_clients();
  Matrix h = stacked_hessian(q, lambda, Matrix::Zero(d, n));
  Vector rhs(n * d);
  for (int i = 0; i < n; ++i) rhs.segment(i * d, d) = q.client(i).hessian * q.client(i).optimum;
  const Eigen::LLT<Matrix> llt(h);
  if (llt.info() != Eigen::Success) {
    throw InputError("problem: the personalised objective is not strongly convex");
  }
  return unflatten(llt.solve(rhs), d, n);
}

Matrix newton_optimum(const Problem& problem, double lambda) {
  const int d = problem.dim();
  const int n = problem.num_clients();
  Matrix x = Matrix::Zero(d, n);
  const double initial = personalised_gradient(problem, lambda, x).norm();
  for (int it = 0; it < kMaxNewtonIterations; ++it) {
    const Vector g = flatten(personalised_gradient(problem, lambda, x));
    const double floor = (problem.smoothness() + lambda) * std::max(1.0, x.norm());
    if (g.norm() <= kGradientTolerance * std::max(initial, floor)) return x;
    const Eigen::LDLT<Matrix> ldlt(stacked_hessian(problem, lambda, x));
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive()) {
      throw InputError("problem: Hessian of the personalised objective is not positive definite");
    }
    const Vector step = -ldlt.solve(g);
    const double f0 = personalised_objective(problem, lambda, x);
    const double slope = g.dot(step);
    double t = 1.0;
    while (t > 1e-12 && personalised_objective(problem, lambda, x + t * unflatten(step, d, n)) >
                            f0 + kArmijo * t * slope) {
      t *= 0.5;
    }
    Matrix next = x + t * unflatten(step, d, n);
    if ((next - x).norm() <= 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, x.norm())) {
      return next;  // round-off floor: the Newton step no longer changes x
    }
    x = next;
  }
  throw InputError(fmt::format(
      "problem: Newton's method did not converge to the personalised optimum (lambda = {})",
      lambda));
}

}  // namespace

Vector flatten(const Matrix& x) { return Eigen::Map<const Vector>(x.data(), x.size()); }
Matrix unflatten(const Vector& v, int d, int n) { return Eigen::Map<const Matrix>(v.data(), d, n); }

Vector client_average(const Matrix& x) { return x.rowwise().mean(); }

double personalised_objective(const Problem& problem, double lambda, const Matrix& x) {
  const Vector mean = client_average(x);
  double value = 0;
  for (int i = 0; i < problem.num_clients(); ++i) {
    value += problem.value(i, x.col(i)) + 0.5 * lambda * (x.col(i) - mean).squaredNorm();
  }
  return value;
}

Matrix personalised_gradient(const Problem& problem, double lambda, const Matrix& x) {
  const Vector mean = client_average(x);
  Matrix g(x.rows(), x.cols());
  for (int i = 0; i < problem.num_clients(); ++i) {
    g.col(i) = problem.gradient(i, x.col(i)) + lambda * (x.col(i) - mean);  // THEORY (P1)
  }
  return g;
}

Matrix personalised_optimum(const Problem& problem, double lambda) {
  if (!(lambda >= 0) || !std::isfinite(lambda)) {
    throw InputError(fmt::format("--lambda: must be finite and ≥ 0 (got {})", lambda));
  }
  if (problem.kind() == ProblemKind::quadratic) {
    return quadratic_optimum(dynamic_cast<const QuadraticProblem&>(problem), lambda);
  }
  return newton_optimum(problem, lambda);
}

Matrix local_optima(const Problem& problem) { return personalised_optimum(problem, 0.0); }

Matrix global_optimum_replicated(const Problem& problem) {
  return minimizer(problem).replicate(1, problem.num_clients());
}

void validate(const L2gdSetting& s) {
  if (!(s.lambda > 0) || !std::isfinite(s.lambda)) {
    throw InputError(fmt::format("--lambda: must be finite and > 0 (got {})", s.lambda));
  }
  if (!(s.p > 0 && s.p < 1)) {
    throw InputError(fmt::format("--p: must lie in (0, 1) (got {})", s.p));
  }
  if (!(s.alpha > 0) || !std::isfinite(s.alpha)) {
    throw InputError(
        fmt::format("--gamma: the step size must be finite and > 0 (got {})", s.alpha));
  }
}

void validate(const CompressorSpec& spec, int dim, const char* field) {
  if (spec.kind == CompressorKind::random_k && (spec.parameter < 1 || spec.parameter > dim)) {
    throw InputError(
        fmt::format("{}: random-k needs 1 ≤ k ≤ d = {} (got {})", field, dim, spec.parameter));
  }
  if (spec.kind == CompressorKind::dithering && spec.parameter < 1) {
    throw InputError(
        fmt::format("{}: random dithering needs s ≥ 1 levels (got {})", field, spec.parameter));
  }
}

}  // namespace fedverify::theory
