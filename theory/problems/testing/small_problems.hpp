// Small problems of the unit tests, drawn from the test stream (tests only). Every builder is a
// pure function of its arguments, so a test that names the same arguments sees the same problem.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_game.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::verify {

// rows × cols matrix of i.i.d. N(0, 1) entries, column by column from `s`.
inline Matrix random_matrix(estimators::Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  return m;
}

// Generator options of a small heterogeneous quadratic: d = 3, N = 4, condition number 10,
// unit optimum and Hessian spread, unit noise.
inline theory::QuadraticGeneratorOptions small_options(std::uint64_t seed) {
  return {.dim = 3,
          .clients = 4,
          .condition = 10.0,
          .optimum_spread = 1.0,
          .hessian_spread = 1.0,
          .noise = 1.0,
          .seed = seed};
}

// A small logistic problem: 2 clients with 5 and 4 samples in d = 3, ℓ2 = 0.1.
inline theory::LogisticProblem small_logistic(int batch_size, std::uint64_t seed = 21) {
  estimators::Stream s(seed, estimators::Purpose::test);
  std::vector<theory::LogisticClient> clients;
  for (int n : {5, 4}) {
    theory::LogisticClient c;
    c.features = random_matrix(s, n, 3);
    c.labels = Vector(n);
    for (int j = 0; j < n; ++j) c.labels(j) = s.uniform() < 0.5 ? -1.0 : 1.0;
    clients.push_back(std::move(c));
  }
  return theory::LogisticProblem(std::move(clients), 0.1, batch_size);
}

// Heterogeneous quadratic: A_c = QΛQᵀ with spectrum in [0.5, 2], b_c ~ N(0, I),
// S_c = noise · GGᵀ/d (noise = 0 gives deterministic gradients).
inline theory::QuadraticProblem quadratic(int d, int n, double noise, std::uint64_t seed = 7) {
  estimators::Stream s(seed, estimators::Purpose::test);
  std::vector<theory::QuadraticClient> clients;
  for (int c = 0; c < n; ++c) {
    const Eigen::HouseholderQR<Matrix> qr(random_matrix(s, d, d));
    const Matrix q = qr.householderQ();
    Vector spectrum(d);
    for (int i = 0; i < d; ++i) spectrum(i) = 0.5 + 1.5 * s.uniform();
    const Matrix a = q * spectrum.asDiagonal() * q.transpose();
    const Matrix g = random_matrix(s, d, d);
    clients.push_back({symmetric_part(a), random_matrix(s, d, 1).col(0),
                       symmetric_part(noise * g * g.transpose() / d)});
  }
  return theory::QuadraticProblem(std::move(clients));
}

// Logistic regression: n clients of `samples` N(0, I) feature rows in d dimensions, labels
// sign(aᵀw + N(0, 1)) for a per-client w ~ N(0, I), ℓ2 = 0.1, minibatch `batch`.
inline theory::LogisticProblem logistic(int d, int n, int samples, int batch,
                                        std::uint64_t seed = 11) {
  estimators::Stream s(seed, estimators::Purpose::test);
  std::vector<theory::LogisticClient> clients;
  for (int c = 0; c < n; ++c) {
    const Matrix f = random_matrix(s, samples, d);
    const Vector w = random_matrix(s, d, 1).col(0);
    Vector y(samples);
    for (int j = 0; j < samples; ++j) y(j) = f.row(j).dot(w) + s.normal() > 0 ? 1.0 : -1.0;
    clients.push_back({f, y});
  }
  return theory::LogisticProblem(std::move(clients), 0.1, batch);
}

// Chains start at distinct points (column k = k/K · 1) so that mixing columns up would show.
inline Matrix spread_start(int d, int k) {
  Matrix x(d, k);
  for (int j = 0; j < k; ++j) x.col(j).setConstant(static_cast<double>(j) / k - 0.5);
  return x;
}

// Client i of small_game (THEORY M1): p = q = 2, deterministic entries, A_i, C_i ≻ 0, noise
// covariance (0.2 + 0.1 i) I with one off-diagonal pair.
inline theory::QuadraticGameClient game_client(int i) {
  const double s = 0.3 * (i + 1);
  theory::QuadraticGameClient c;
  c.a = Matrix{{2.0 + s, 0.3 - 0.1 * i}, {0.3 - 0.1 * i, 1.0 + 0.5 * s}};
  c.b = Matrix{{0.5 * std::sin(1.0 + i), 0.4}, {-0.2, 0.7 * std::cos(2.0 + i)}};
  c.c = Matrix{{1.5 - 0.2 * i, 0.1}, {0.1, 0.8 + s}};
  c.a_linear = Vector{{1.0 - i, 0.5 * i}};
  c.c_linear = Vector{{-0.5 + 0.3 * i, 1.0}};
  c.noise_cov = Matrix::Identity(4, 4) * (0.2 + 0.1 * i);
  c.noise_cov(0, 1) = c.noise_cov(1, 0) = 0.05;
  return c;
}

// A p = 2, q = 2 game with N = 3 heterogeneous clients (clients 0, 1, 2 above).
inline theory::QuadraticGame small_game() {
  return theory::QuadraticGame({game_client(0), game_client(1), game_client(2)});
}

}  // namespace fedverify::verify
