#include "theory/personalised.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/input_error.hpp"
#include "theory/optimum.hpp"

namespace fedverify::theory {
namespace {

constexpr int kMaxNewtonIterations = 200;
// Newton stops at ‖n∇F(x)‖ ≤ 1e-13·max(‖n∇F(0)‖, (L + λ)·max(1, ‖x‖)): a few hundred ulps of
// the gradient's scale; the second term is the round-off floor of evaluating
// ∇f_i(x_i) + λ(x_i − x̄), whose Jacobian has norm ≤ L + λ.
constexpr double kGradientTolerance = 1e-13;
constexpr double kArmijo = 1e-4;  // sufficient-decrease constant of the backtracking search

Vector flatten(const Matrix& x) { return Eigen::Map<const Vector>(x.data(), x.size()); }
Matrix unflatten(const Vector& v, int d, int n) { return Eigen::Map<const Matrix>(v.data(), d, n); }

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
    const Matrix next = x + t * unflatten(step, d, n);
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

L2gdConstants l2gd_constants(const Problem& problem, const L2gdSetting& s, const Matrix& x_lambda) {
  validate(s);
  const double n = problem.num_clients();
  L2gdConstants k;
  k.mu = problem.strong_convexity();
  k.l = problem.smoothness();
  k.l_cal = std::max(k.l / (1 - s.p), s.lambda / s.p) / n;  // THEORY (P3)
  k.alpha_max = 1 / (2 * k.l_cal);                          // THEORY (P3)
  k.rate = 1 - s.alpha * k.mu / n;                          // THEORY (P3)
  const Vector mean = client_average(x_lambda);
  double sum = 0;
  for (int i = 0; i < problem.num_clients(); ++i) {
    sum += problem.gradient(i, x_lambda.col(i)).squaredNorm() / (1 - s.p) +
           s.lambda * s.lambda * (x_lambda.col(i) - mean).squaredNorm() / s.p;
  }
  k.sigma2 = sum / (n * n);                             // THEORY (P3)
  k.neighbourhood = 2 * n * s.alpha * k.sigma2 / k.mu;  // THEORY (P3)
  return k;
}

double l2gd_bound(const L2gdConstants& k, double initial_error2, int iteration) {
  return std::pow(k.rate, iteration) * initial_error2 + k.neighbourhood;  // THEORY (P3)
}

double optimal_probability(double lambda, double l) { return lambda / (lambda + l); }  // (P4)

double predicted_communications(double lambda, double l, double mu, double eps) {
  return 2 * lambda / (lambda + l) * (l / mu) * std::log(1 / eps);  // THEORY (P4)
}

double gradient_descent_communications(double l, double mu, double eps) {
  return (l / mu) * std::log(1 / eps);  // THEORY (P4), baseline
}

double expected_communications(double p, std::int64_t iterations) {
  return iterations < 1 ? 0.0 : static_cast<double>(iterations - 1) * p * (1 - p);  // (P2)
}

L2gdAffineMaps l2gd_affine_maps(const QuadraticProblem& q, const L2gdSetting& s,
                                const Matrix& x_lambda) {
  validate(s);
  const int d = q.dim();
  const int n = q.num_clients();
  const int nd = n * d;
  const double beta = s.alpha / (n * (1 - s.p));        // local step size, THEORY (P2)
  const double theta = s.alpha * s.lambda / (n * s.p);  // averaging weight, THEORY (P2)
  L2gdAffineMaps m;
  m.local_map = Matrix::Identity(nd, nd);
  m.local_offset.resize(nd);
  for (int i = 0; i < n; ++i) {
    const QuadraticClient& c = q.client(i);
    m.local_map.block(i * d, i * d, d, d) -= beta * c.hessian;
    m.local_offset.segment(i * d, d) = -beta * c.hessian * (x_lambda.col(i) - c.optimum);
  }
  m.average_map = (1 - theta) * Matrix::Identity(nd, nd);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      m.average_map.block(i * d, j * d, d, d).diagonal().array() += theta / n;
    }
  }
  const Vector mean = client_average(x_lambda);
  m.average_offset.resize(nd);
  for (int i = 0; i < n; ++i)
    m.average_offset.segment(i * d, d) = -theta * (x_lambda.col(i) - mean);
  return m;
}

L2gdMeanSquare::L2gdMeanSquare(const QuadraticProblem& problem, const L2gdSetting& setting,
                               const Matrix& x0)
    : p_(setting.p), x_lambda_(personalised_optimum(problem, setting.lambda)) {
  if (x0.rows() != problem.dim() || x0.cols() != problem.num_clients()) {
    throw InputError("x0: expected a d×n matrix");
  }
  maps_ = l2gd_affine_maps(problem, setting, x_lambda_);
  first_moment_ = flatten(x0 - x_lambda_);
  second_moment_ = first_moment_ * first_moment_.transpose();
}

Matrix L2gdMeanSquare::mean() const {
  return x_lambda_ + unflatten(first_moment_, static_cast<int>(x_lambda_.rows()),
                               static_cast<int>(x_lambda_.cols()));
}

void L2gdMeanSquare::step() {
  const auto branch = [&](const Matrix& map, const Vector& offset) {
    const Vector mapped = map * first_moment_;
    Matrix s = map * second_moment_ * map.transpose();
    s += mapped * offset.transpose() + offset * mapped.transpose() + offset * offset.transpose();
    return std::pair<Vector, Matrix>{mapped + offset, s};
  };
  auto [m0, s0] = branch(maps_.local_map, maps_.local_offset);
  auto [m1, s1] = branch(maps_.average_map, maps_.average_offset);
  first_moment_ = (1 - p_) * m0 + p_ * m1;
  second_moment_ = (1 - p_) * s0 + p_ * s1;
  ++iteration_;
}

std::vector<double> l2gd_mean_square_trajectory(const QuadraticProblem& problem,
                                                const L2gdSetting& setting, const Matrix& x0,
                                                int iterations) {
  L2gdMeanSquare chain(problem, setting, x0);
  std::vector<double> out{chain.mean_square_error()};
  for (int k = 0; k < iterations; ++k) {
    chain.step();
    out.push_back(chain.mean_square_error());
  }
  return out;
}

std::int64_t l2gd_iterations_to_reach(const QuadraticProblem& problem, const L2gdSetting& setting,
                                      const Matrix& x0, double eps, std::int64_t max_iterations) {
  L2gdMeanSquare chain(problem, setting, x0);
  while (chain.iteration() <= max_iterations) {
    if (chain.mean_square_error() <= eps) return chain.iteration();
    chain.step();
  }
  return -1;
}

double compressor_omega(const CompressorSpec& spec, int dim) {
  const double d = dim;
  switch (spec.kind) {
    case CompressorKind::identity:
      return 0;
    case CompressorKind::random_k:
      return d / spec.parameter - 1;  // THEORY (P5)
    case CompressorKind::dithering: {
      const double s = spec.parameter;
      return std::min(d / (s * s), std::sqrt(d) / s);  // THEORY (P5)
    }
    case CompressorKind::natural:
      return 1.0 / 8;  // THEORY (P5)
  }
  return 0;
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
