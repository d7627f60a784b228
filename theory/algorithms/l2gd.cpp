#include "theory/algorithms/l2gd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/l2gd_parameters.hpp"

namespace fedverify::theory {

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

L2gdSetting l2gd_setting(const RunSetting& run, const Problem& problem) {
  const double lambda = parameter_value(run, kLambdaKey);
  const std::optional<double> p = optional_parameter_value(run, kAveragingProbabilityKey);
  if (!(lambda > 0) || !std::isfinite(lambda)) {
    throw InputError(fmt::format("--lambda: must be finite and > 0 (got {})", lambda));
  }
  const L2gdSetting s{lambda, p.value_or(optimal_probability(lambda, problem.smoothness())),
                      run.gamma};
  validate(s);
  if (!(s.p >= kMinAveragingProbability && s.p <= 1 - kMinAveragingProbability)) {
    throw InputError(fmt::format(
        "--p: must lie in [{:g}, 1 - {:g}] (got {:g}{}); the L2GD rates divide by p and 1 - p",
        kMinAveragingProbability, kMinAveragingProbability, s.p,
        p ? "" : ", the default p* = lambda/(lambda + L)"));
  }
  return s;
}

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

std::vector<AffineBranch> l2gd_branches(const L2gdAffineMaps& maps, double p) {
  return {{1 - p, maps.local_map, maps.local_offset}, {p, maps.average_map, maps.average_offset}};
}

namespace {
Vector checked_error(const QuadraticProblem& problem, const Matrix& x0, const Matrix& x_lambda) {
  if (x0.rows() != problem.dim() || x0.cols() != problem.num_clients()) {
    throw InputError("x0: expected a d×n matrix");
  }
  return flatten(x0 - x_lambda);
}
}  // namespace

L2gdMeanSquare::L2gdMeanSquare(const QuadraticProblem& problem, const L2gdSetting& setting,
                               const Matrix& x0)
    : x_lambda_(personalised_optimum(problem, setting.lambda)),
      moments_(l2gd_branches(l2gd_affine_maps(problem, setting, x_lambda_), setting.p),
               checked_error(problem, x0, x_lambda_)) {}

Matrix L2gdMeanSquare::mean() const {
  return x_lambda_ + unflatten(moments_.mean(), static_cast<int>(x_lambda_.rows()),
                               static_cast<int>(x_lambda_.cols()));
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

namespace {

// Help-text positions: after the chain algorithms, L2GD first, then its finite-sum variants.
constexpr int kL2gdOrder = 50;
constexpr int kL2sgdOrder = 60;
constexpr int kL2sgdPlusOrder = 70;
constexpr int kL2gdPlusOrder = 55;
constexpr int kL2sgdPlusPlusOrder = 75;

// The step setting of the personalised family is checked as an L2gdSetting (validate above,
// --gamma is the step size α); the common checks still apply to its γ.
[[maybe_unused]] const bool registered_l2gd =
    register_algorithm({.algorithm = Algorithm{"l2gd"},
                        .order = kL2gdOrder,
                        .summary = "L2GD: personalised FL, local or averaging steps (THEORY P2)",
                        .theory_labels = {"P1", "P2", "P3", "P4", "P5"},
                        .family = AlgorithmFamily::personalised,
                        .options = {AlgorithmOption::uplink, AlgorithmOption::downlink,
                                    AlgorithmOption::participating},
                        .parameters = {lambda_parameter(), averaging_probability_parameter()},
                        .has_closed_forms = true});

[[maybe_unused]] const bool registered_l2sgd =
    register_algorithm({.algorithm = Algorithm{"l2sgd"},
                        .order = kL2sgdOrder,
                        .summary = "L2SGD: L2GD on finite sums, one sample a step (simulate only)",
                        .theory_labels = {"P1", "P2"},
                        .family = AlgorithmFamily::personalised,
                        .parameters = {lambda_parameter(), averaging_probability_parameter()},
                        .has_closed_forms = false});

[[maybe_unused]] const bool registered_l2sgd_plus = register_algorithm(
    {.algorithm = Algorithm{"l2sgd+"},
     .order = kL2sgdPlusOrder,
     .summary = "L2SGD+: L2SGD with control variates, [L2GD] Alg. 2 (simulate only)",
     .theory_labels = {"P1", "P2", "P7"},
     .family = AlgorithmFamily::personalised,
     .parameters = {lambda_parameter(), averaging_probability_parameter()},
     .has_closed_forms = false});

[[maybe_unused]] const bool registered_l2gd_plus = register_algorithm(
    {.algorithm = Algorithm{"l2gd+"},
     .order = kL2gdPlusOrder,
     .summary = "L2GD+: L2GD with control variates, full local gradients (simulate only)",
     .theory_labels = {"P1", "P2", "P7"},
     .family = AlgorithmFamily::personalised,
     .parameters = {lambda_parameter(), averaging_probability_parameter()},
     .has_closed_forms = false});

[[maybe_unused]] const bool registered_l2sgd_plus_plus = register_algorithm(
    {.algorithm = Algorithm{"l2sgd++"},
     .order = kL2sgdPlusPlusOrder,
     .summary = "L2SGD++: L2SGD+ with tau working clients a local step (reconstructed, simulate)",
     .theory_labels = {"P1", "P2", "P7"},
     .family = AlgorithmFamily::personalised,
     .options = {AlgorithmOption::participating},
     .parameters = {lambda_parameter(), averaging_probability_parameter()},
     .has_closed_forms = false});

}  // namespace
}  // namespace fedverify::theory
