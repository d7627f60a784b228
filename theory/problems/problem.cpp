#include "theory/problems/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

double Problem::weight(int client) const {
  return weights_.empty() ? 1.0 / num_clients() : weights_[static_cast<std::size_t>(client)];
}

void Problem::set_client_weights(const std::vector<double>& raw) {
  if (static_cast<int>(raw.size()) != num_clients()) {
    throw InputError(fmt::format("clients: {} weights for {} clients", raw.size(), num_clients()));
  }
  double total = 0;
  for (std::size_t c = 0; c < raw.size(); ++c) {
    if (!(std::isfinite(raw[c]) && raw[c] > 0)) {
      throw InputError(
          fmt::format("clients[{}].weight: must be a finite number > 0, got {}", c, raw[c]));
    }
    total += raw[c];
  }
  if (!std::isfinite(total)) {
    throw InputError("clients: the sum of the client weights overflows double precision");
  }
  raw_weights_.clear();
  weights_.clear();
  const bool equal = std::all_of(raw.begin(), raw.end(), [&](double w) { return w == raw[0]; });
  if (!equal) {
    raw_weights_ = raw;
    for (double w : raw) weights_.push_back(w / total);
  }
  weights_changed();
}

namespace {

// Σ_c p_c v_c, as (Σ_c v_c)/N for equal weights.
template <typename T, typename PerClient>
T weighted_sum(const Problem& p, T zero, PerClient per_client) {
  T sum = zero;
  if (p.equal_weights()) {
    for (int c = 0; c < p.num_clients(); ++c) sum += per_client(c);
    return sum / static_cast<double>(p.num_clients());
  }
  for (int c = 0; c < p.num_clients(); ++c) sum += p.weight(c) * per_client(c);
  return sum;
}

}  // namespace

double average_value(const Problem& p, const Vector& x) {
  return weighted_sum(p, 0.0, [&](int c) { return p.value(c, x); });
}

Vector average_gradient(const Problem& p, const Vector& x) {
  return weighted_sum(p, Vector(Vector::Zero(p.dim())), [&](int c) { return p.gradient(c, x); });
}

Matrix average_hessian(const Problem& p, const Vector& x) {
  return weighted_sum(p, Matrix(Matrix::Zero(p.dim(), p.dim())),
                      [&](int c) { return p.hessian(c, x); });
}

Vector average_third_derivative(const Problem& p, const Vector& x, const Matrix& m) {
  return weighted_sum(p, Vector(Vector::Zero(p.dim())),
                      [&](int c) { return p.third_derivative(c, x, m); });
}

Matrix average_noise_covariance(const Problem& p, const Vector& x) {
  return weighted_sum(p, Matrix(Matrix::Zero(p.dim(), p.dim())),
                      [&](int c) { return p.noise_covariance(c, x); });
}

Matrix aggregated_noise_covariance(const Problem& p, const Vector& x) {
  const double n = p.num_clients();
  Matrix sum = Matrix::Zero(p.dim(), p.dim());
  for (int c = 0; c < p.num_clients(); ++c) {
    const Matrix cov = p.noise_covariance(c, x);
    // C̄ = Σ_c C_c/N (term by term, the unweighted formulas' arithmetic); C̄_p = Σ_c N p_c² C_c.
    sum += p.equal_weights() ? Matrix(cov / n) : Matrix(n * noise_factor(p, c) * cov);  // (A1)
  }
  return sum;
}

std::string to_string(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::quadratic:
      return "quadratic";
    case ProblemKind::logistic:
      return "logistic";
    case ProblemKind::linear_sa:
      return "linear-sa";
    case ProblemKind::least_squares:
      return "least-squares";
  }
  return "unknown";
}

}  // namespace fedverify::theory
