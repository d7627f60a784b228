#include "theory/problems/generators.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;

// Which random object a stream draws; part of the stream address so that changing one knob
// (e.g. optimum_spread) never changes the numbers drawn for another (e.g. the Hessians).
enum Part : std::uint64_t {
  shared_hessian = 1,
  client_hessian = 2,
  optimum_centre = 3,
  client_optimum = 4,
  client_noise = 5,
};

Stream stream(const QuadraticGeneratorOptions& o, Part part, int client = 0) {
  return Stream(o.seed, Purpose::problem_generator, part, static_cast<std::uint64_t>(client));
}

Matrix gaussian_matrix(Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  }
  return m;
}

Vector gaussian_vector(Stream& s, int n) { return gaussian_matrix(s, n, 1).col(0); }

// Haar-distributed orthogonal matrix: Q of the QR factorisation of a Gaussian matrix, with the
// signs fixed so that R has a positive diagonal (Mezzadri 2007).
Matrix haar_orthogonal(Stream& s, int d) {
  const Eigen::HouseholderQR<Matrix> qr(gaussian_matrix(s, d, d));
  Matrix q = qr.householderQ();
  const Matrix r = qr.matrixQR().triangularView<Eigen::Upper>();
  for (int j = 0; j < d; ++j) {
    if (r(j, j) < 0) q.col(j) *= -1.0;
  }
  return q;
}

// Q diag(λ) Qᵀ with λ log-uniform in [1/κ, 1]; for d ≥ 2, λ₁ = 1 and λ₂ = 1/κ exactly.
Matrix random_hessian(Stream& s, int d, double condition) {
  const double log_kappa = std::log(condition);
  Vector lambda(d);
  for (int i = 0; i < d; ++i) {
    const double u = i == 0 && d >= 2 ? 1.0 : i == 1 ? 0.0 : s.uniform();
    lambda(i) = std::exp(-log_kappa * (1.0 - u));
  }
  const Matrix q = haar_orthogonal(s, d);
  return symmetric_part(q * lambda.asDiagonal() * q.transpose());
}

}  // namespace

void validate(const QuadraticGeneratorOptions& o) {
  if (o.dim < 1) throw InputError(fmt::format("generator.dim: must be >= 1, got {}", o.dim));
  if (o.clients < 1) {
    throw InputError(fmt::format("generator.clients: must be >= 1, got {}", o.clients));
  }
  if (!std::isfinite(o.condition) || o.condition < 1.0) {
    throw InputError(
        fmt::format("generator.condition: must be a finite number >= 1, got {}", o.condition));
  }
  if (!std::isfinite(o.optimum_spread) || o.optimum_spread < 0.0) {
    throw InputError(fmt::format("generator.optimum_spread: must be a finite number >= 0, got {}",
                                 o.optimum_spread));
  }
  if (!(o.hessian_spread >= 0.0 && o.hessian_spread <= 1.0)) {
    throw InputError(
        fmt::format("generator.hessian_spread: must be in [0, 1], got {}", o.hessian_spread));
  }
  if (!std::isfinite(o.noise) || o.noise < 0.0) {
    throw InputError(fmt::format("generator.noise: must be a finite number >= 0, got {}", o.noise));
  }
}

QuadraticProblem generate_quadratic(const QuadraticGeneratorOptions& o) {
  validate(o);
  const int d = o.dim;
  Stream shared = stream(o, shared_hessian);
  const Matrix a0 = random_hessian(shared, d, o.condition);
  Stream centre_stream = stream(o, optimum_centre);
  const Vector centre = gaussian_vector(centre_stream, d);

  std::vector<QuadraticClient> clients;
  clients.reserve(static_cast<std::size_t>(o.clients));
  for (int c = 0; c < o.clients; ++c) {
    QuadraticClient cl;
    cl.hessian = a0;
    if (o.hessian_spread > 0.0) {
      Stream hs = stream(o, client_hessian, c);
      cl.hessian = symmetric_part((1.0 - o.hessian_spread) * a0 +
                                  o.hessian_spread * random_hessian(hs, d, o.condition));
    }
    Stream os = stream(o, client_optimum, c);
    cl.optimum = centre + o.optimum_spread * gaussian_vector(os, d);
    Stream ns = stream(o, client_noise, c);
    const Matrix w = gaussian_matrix(ns, d, d);
    cl.noise_cov = symmetric_part(o.noise * w * w.transpose() / d);
    clients.push_back(std::move(cl));
  }
  return QuadraticProblem(std::move(clients));
}

}  // namespace fedverify::theory
