#include "estimators/statistics/wasserstein.hpp"

#include <lemon/network_simplex.h>
#include <lemon/static_graph.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {

Matrix psd_sqrt(const Matrix& s) {
  const Eigen::SelfAdjointEigenSolver<Matrix> eig(symmetric_part(s));
  const Vector root = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  return eig.eigenvectors() * root.asDiagonal() * eig.eigenvectors().transpose();
}

namespace {

void check_covariance(const Matrix& s, Eigen::Index dim, const char* field) {
  if (s.rows() != dim || s.cols() != dim) {
    throw InputError(std::string(field) + ": expected " + std::to_string(dim) + "×" +
                     std::to_string(dim) + ", got " + std::to_string(s.rows()) + "×" +
                     std::to_string(s.cols()));
  }
  if (!s.allFinite()) throw InputError(std::string(field) + ": non-finite entry");
  // Symmetric up to round-off of a computed covariance (relative 1e-8 of its largest entry).
  const double tolerance = 1e-8 * std::max(1.0, s.cwiseAbs().maxCoeff());
  if ((s - s.transpose()).cwiseAbs().maxCoeff() > tolerance) {
    throw InputError(std::string(field) + ": not symmetric");
  }
}

void check_samples(const Matrix& x, const Matrix& y) {
  if (x.rows() != y.rows() || x.cols() != y.cols()) {
    throw InputError("samples: expected two d×n matrices of equal size, got " +
                     std::to_string(x.rows()) + "×" + std::to_string(x.cols()) + " and " +
                     std::to_string(y.rows()) + "×" + std::to_string(y.cols()));
  }
  if (x.cols() == 0) throw InputError("samples: empty");
  if (!x.allFinite() || !y.allFinite()) throw InputError("samples: non-finite entry");
}

// Pairwise squared distances D_ij = ‖x_i − y_j‖² (n × n), clamped at 0 against cancellation.
Matrix squared_distances(const Matrix& x, const Matrix& y) {
  Matrix d = (-2.0 * x.transpose() * y).colwise() + x.colwise().squaredNorm().transpose();
  d.rowwise() += y.colwise().squaredNorm();
  return d.cwiseMax(0.0);
}

}  // namespace

double bures_wasserstein(const Vector& m1, const Matrix& s1, const Vector& m2, const Matrix& s2) {
  if (m1.size() != m2.size()) {
    throw InputError("m2: dimension " + std::to_string(m2.size()) + " differs from m1's " +
                     std::to_string(m1.size()));
  }
  check_covariance(s1, m1.size(), "s1");
  check_covariance(s2, m1.size(), "s2");
  const Matrix root2 = psd_sqrt(s2);
  const Matrix middle = symmetric_part(root2 * symmetric_part(s1) * root2);
  const Eigen::SelfAdjointEigenSolver<Matrix> eig(middle, Eigen::EigenvaluesOnly);
  const double cross = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().sum();
  const double w2_squared = (m1 - m2).squaredNorm() + s1.trace() + s2.trace() - 2.0 * cross;
  return std::sqrt(std::max(0.0, w2_squared));
}

std::vector<int> optimal_assignment(const Matrix& x, const Matrix& y) {
  check_samples(x, y);
  const int n = static_cast<int>(x.cols());
  const Matrix cost = squared_distances(x, y);
  const double max_cost = cost.maxCoeff();

  // Nodes 0..n−1: samples of x (supply 1); n..2n−1: samples of y (demand 1). Arc i·n + j.
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) arcs.emplace_back(i, n + j);
  }
  lemon::StaticDigraph graph;
  graph.build(2 * n, arcs.begin(), arcs.end());

  // Integer costs (LEMON requires them): largest squared distance ↦ 2⁵⁸/n (see header).
  const double integer_scale =
      max_cost > 0.0 ? std::ldexp(1.0, 58) / static_cast<double>(n) / max_cost : 0.0;
  lemon::StaticDigraph::ArcMap<long long> arc_cost(graph);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      arc_cost[graph.arc(i * n + j)] = std::llround(cost(i, j) * integer_scale);
    }
  }
  lemon::StaticDigraph::NodeMap<int> supply(graph);
  for (int v = 0; v < n; ++v) {
    supply[graph.node(v)] = 1;
    supply[graph.node(n + v)] = -1;
  }

  lemon::NetworkSimplex<lemon::StaticDigraph, int, long long> simplex(graph);
  simplex.costMap(arc_cost).supplyMap(supply);
  if (simplex.run() != decltype(simplex)::OPTIMAL) {
    throw std::runtime_error("empirical_w2: network simplex did not reach an optimum");
  }
  std::vector<int> sigma(n, -1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (simplex.flow(graph.arc(i * n + j)) > 0) sigma[i] = j;
    }
  }
  return sigma;
}

double empirical_w2(const Matrix& x, const Matrix& y) {
  const std::vector<int> sigma = optimal_assignment(x, y);
  double total = 0.0;
  for (int i = 0; i < static_cast<int>(sigma.size()); ++i) {
    total += (x.col(i) - y.col(sigma[i])).squaredNorm();
  }
  return std::sqrt(total / static_cast<double>(sigma.size()));
}

double w2_1d(std::vector<double> x, std::vector<double> y) {
  if (x.size() != y.size() || x.empty()) {
    throw InputError("samples: expected two non-empty samples of equal size, got " +
                     std::to_string(x.size()) + " and " + std::to_string(y.size()));
  }
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  double total = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) total += (x[i] - y[i]) * (x[i] - y[i]);
  return std::sqrt(total / static_cast<double>(x.size()));
}

double sliced_w2(const Matrix& x, const Matrix& y, int projections, std::uint64_t seed) {
  check_samples(x, y);
  if (projections < 1) {
    throw InputError("projections: must be ≥ 1, got " + std::to_string(projections));
  }
  const Eigen::Index d = x.rows();
  Stream stream(seed, Purpose::projections);
  double total = 0.0;
  Vector theta(d);
  for (int l = 0; l < projections; ++l) {
    // Uniform direction: a normalised standard Gaussian vector (redrawn if ≈ 0).
    do {
      for (Eigen::Index k = 0; k < d; ++k) theta(k) = stream.normal();
    } while (theta.norm() < 1e-12);
    theta.normalize();
    const Eigen::RowVectorXd px = theta.transpose() * x;
    const Eigen::RowVectorXd py = theta.transpose() * y;
    const double w = w2_1d(std::vector<double>(px.data(), px.data() + px.size()),
                           std::vector<double>(py.data(), py.data() + py.size()));
    total += w * w;
  }
  return std::sqrt(total / projections);
}

}  // namespace fedverify::estimators
