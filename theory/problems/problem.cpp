#include "theory/problems/problem.hpp"

namespace fedverify::theory {

double average_value(const Problem& p, const Vector& x) {
  double sum = 0.0;
  for (int c = 0; c < p.num_clients(); ++c) sum += p.value(c, x);
  return sum / p.num_clients();
}

Vector average_gradient(const Problem& p, const Vector& x) {
  Vector sum = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) sum += p.gradient(c, x);
  return sum / p.num_clients();
}

Matrix average_hessian(const Problem& p, const Vector& x) {
  Matrix sum = Matrix::Zero(p.dim(), p.dim());
  for (int c = 0; c < p.num_clients(); ++c) sum += p.hessian(c, x);
  return sum / p.num_clients();
}

Vector average_third_derivative(const Problem& p, const Vector& x, const Matrix& m) {
  Vector sum = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) sum += p.third_derivative(c, x, m);
  return sum / p.num_clients();
}

Matrix average_noise_covariance(const Problem& p, const Vector& x) {
  Matrix sum = Matrix::Zero(p.dim(), p.dim());
  for (int c = 0; c < p.num_clients(); ++c) sum += p.noise_covariance(c, x);
  return sum / p.num_clients();
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
