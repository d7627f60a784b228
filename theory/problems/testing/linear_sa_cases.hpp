// Small linear-sa problems and helpers of the exact-moment tests (THEORY (L1); tests only): the
// dense non-symmetric and least-squares builders, the settings of theory/algorithms/
// linear_sa_test.cpp and fedopt_lsa_test.cpp, and each client's samples written out; the
// Kronecker product of the brute-force references is theory/base/testing/kronecker.hpp's.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/base/testing/round_off.hpp"  // relative_error
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::verify {

// Non-symmetric dense samples: A_k = I·(1 + c/4) + 0.4·R_k, R_k ~ N(0, 1)/d entries, weights in
// [0.5, 2], so Re eig(Ā_c) > 0 comfortably (TD-like: a symmetric positive part plus rotation).
inline theory::LinearSaProblem dense_problem(int d, int n, int samples, int batch, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.5, 2.0);
  std::vector<theory::LinearSaClient> clients(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k < samples; ++k) {
      theory::LinearSaSample s;
      s.weight = uniform(rng);
      s.a = Matrix::Identity(d, d) * (1.0 + 0.25 * c);
      for (int i = 0; i < d; ++i) {
        for (int j = 0; j < d; ++j) s.a(i, j) += 0.4 * normal(rng) / d;
      }
      s.b = Vector(d);
      for (int i = 0; i < d; ++i) s.b(i) = normal(rng) + c;
      clients[c].samples.push_back(std::move(s));
    }
  }
  return theory::LinearSaProblem(std::move(clients), batch);
}

inline theory::LinearSaProblem least_squares_problem(int d, int n, int rows, int batch, double l2,
                                                     unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<theory::LeastSquaresClient> clients(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    clients[c].features = Matrix(rows, d);
    clients[c].targets = Vector(rows);
    for (int j = 0; j < rows; ++j) {
      for (int i = 0; i < d; ++i) clients[c].features(j, i) = normal(rng) * (1.0 + 0.3 * c);
      clients[c].targets(j) = normal(rng) + 0.5 * c;
    }
  }
  return theory::LinearSaProblem(std::move(clients), l2, batch);
}

// The samples (π_k, A_k, b_k) of client c, written out (least squares: A = aaᵀ + λI, b = y a).
struct Sample {
  double p;
  Matrix a;
  Vector b;
};
inline std::vector<Sample> samples_of(const theory::LinearSaProblem& p, int c) {
  std::vector<Sample> out;
  const int d = p.dim();
  if (p.least_squares()) {
    const auto& cl = p.ls_client(c);
    const double n = static_cast<double>(cl.targets.size());
    for (Eigen::Index j = 0; j < cl.targets.size(); ++j) {
      const Vector a = cl.features.row(j).transpose();
      out.push_back(
          {1.0 / n, a * a.transpose() + p.l2() * Matrix::Identity(d, d), cl.targets(j) * a});
    }
    return out;
  }
  double total = 0;
  for (const auto& s : p.client(c).samples) total += s.weight;
  for (const auto& s : p.client(c).samples) out.push_back({s.weight / total, s.a, s.b});
  return out;
}

struct LsaCase {
  const char* name;
  theory::LinearSaProblem problem;
  double gamma;
  int steps;
};

inline std::vector<LsaCase> lsa_cases() {
  std::vector<LsaCase> out;
  out.push_back({"dense d=2 N=3 B=1 H=3", dense_problem(2, 3, 3, 1, 11), 0.2, 3});
  out.push_back({"dense d=3 N=2 B=3 H=2", dense_problem(3, 2, 4, 3, 12), 0.15, 2});
  out.push_back({"dense d=2 N=2 B=2 H=1", dense_problem(2, 2, 2, 2, 13), 0.3, 1});
  out.push_back(
      {"least squares d=2 N=3 B=1 H=2", least_squares_problem(2, 3, 4, 1, 0.1, 14), 0.1, 2});
  out.push_back(
      {"least squares d=3 N=2 B=4 H=3", least_squares_problem(3, 2, 5, 4, 0.0, 15), 0.05, 3});
  return out;
}

}  // namespace fedverify::verify
