#include "verify/claims/problems/dynamics_problems.hpp"

#include "estimators/samplers/l2gd.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims {

theory::LogisticProblem small_logistic() { return heterogeneous_logistic(4); }

double per_sample_smoothness(const theory::LogisticProblem& p) {
  return estimators::finite_sum_smoothness(p);  // max_j ‖a_j‖²/4 + l2, THEORY §6
}

theory::QuadraticProblem shared_hessian_problem(int n) {
  const auto& base = as_quadratic(default_quadratic_problems().front()).client(0);
  std::vector<theory::QuadraticClient> clients;
  for (int c = 0; c < n; ++c) {
    const double angle = 2.0 * std::numbers::pi * c / n;
    Vector b = base.optimum;
    b(0) += std::cos(angle);
    b(1) += std::sin(angle);
    clients.push_back({base.hessian, b, base.noise_cov});
  }
  return theory::QuadraticProblem(std::move(clients));
}

namespace {

Matrix symmetric_2x2(double a, double b, double c) {
  Matrix m(2, 2);
  m << a, b, b, c;
  return m;
}

Matrix symmetric_root(const Matrix& s) {
  const Eigen::SelfAdjointEigenSolver<Matrix> es(s);
  return es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() *
         es.eigenvectors().transpose();
}

}  // namespace

theory::QuadraticProblem heterogeneous_speedup_problem(int n) {
  const Matrix hess = symmetric_2x2(1.5, 0.2, 1.0);
  const Matrix noise = symmetric_2x2(0.4, 0.05, 0.3);
  const Matrix hess_root = symmetric_root(hess), noise_root = symmetric_root(noise);
  constexpr double kDelta = 0.6;
  constexpr double kGolden = 0.6180339887498949;  // low-discrepancy sequences of angles
  constexpr double kPlastic = 0.7548776662466927;
  const Matrix p1 = symmetric_2x2(1, 0, -1), p2 = symmetric_2x2(0, 1, 0);
  const Matrix id = Matrix::Identity(2, 2);
  std::vector<Matrix> g(n), k(n);
  Matrix g_mean = Matrix::Zero(2, 2), k_mean = Matrix::Zero(2, 2);
  for (int c = 0; c < n; ++c) {
    const double u = std::fmod(c * kGolden, 1.0);
    const double v = std::fmod(c * kGolden * kGolden + 0.3, 1.0);
    const double phi = 2 * std::numbers::pi * u;
    const double psi = 2 * std::numbers::pi * std::fmod(c * kPlastic + 0.1, 1.0);
    g[c] = (v - 0.5) * id + std::cos(phi) * p1 + std::sin(phi) * p2;
    k[c] = (u - 0.5) * id + 0.8 * (std::cos(psi) * p1 + std::sin(psi) * p2);
    g_mean += g[c] / n;
    k_mean += k[c] / n;
  }
  std::vector<theory::QuadraticClient> clients;
  for (int c = 0; c < n; ++c) {
    const double angle = 2 * std::numbers::pi * std::fmod(c * kGolden, 1.0);
    Vector b(2);
    b << std::cos(angle), std::sin(angle);
    clients.push_back({hess_root * (id + kDelta * (g[c] - g_mean)) * hess_root, b,
                       noise_root * (id + kDelta * (k[c] - k_mean)) * noise_root});
  }
  return theory::QuadraticProblem(std::move(clients));
}

theory::LogisticProblem heterogeneous_logistic(int n) {
  theory::LogisticGeneratorOptions o;
  o.dim = 2;
  o.clients = n;
  o.samples_per_client = 40;
  o.l2 = 0.3;
  o.batch_size = 1;
  o.feature_shift = 0.5;
  o.label_skew = 0.3;
  o.separation = 2.0;
  o.seed = kSmallLogisticSeed;
  return theory::generate_logistic(o);
}

theory::QuadraticProblem replicated_clients(const theory::QuadraticProblem& q, int k) {
  std::vector<theory::QuadraticClient> clients;
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < q.num_clients(); ++c) clients.push_back(q.client(c));
  }
  return theory::QuadraticProblem(std::move(clients));
}

theory::LogisticProblem replicated_clients(const theory::LogisticProblem& p, int k) {
  std::vector<theory::LogisticClient> clients;
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < p.num_clients(); ++c) clients.push_back(p.client(c));
  }
  return {std::move(clients), p.l2(), p.batch_size()};
}

}  // namespace fedverify::claims
