#include "verify/claims/problems/dynamics_problems.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims {

theory::LogisticProblem small_logistic() {
  theory::LogisticGeneratorOptions o;
  o.dim = 2;
  o.clients = 4;
  o.samples_per_client = 40;
  o.l2 = 0.3;
  o.batch_size = 1;
  o.feature_shift = 0.5;
  o.label_skew = 0.3;
  o.separation = 2.0;
  o.seed = kSmallLogisticSeed;
  return theory::generate_logistic(o);
}

double per_sample_smoothness(const theory::LogisticProblem& p) {
  double top = 0;
  for (int c = 0; c < p.num_clients(); ++c) {
    top = std::max(top, p.client(c).features.rowwise().squaredNorm().maxCoeff());
  }
  return 0.25 * top + p.l2();
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

theory::LogisticProblem pooled_clients_logistic(int n) {
  const auto base = small_logistic();
  const int d = base.dim();
  int rows = 0;
  for (int c = 0; c < base.num_clients(); ++c)
    rows += static_cast<int>(base.client(c).labels.size());
  theory::LogisticClient pooled{Matrix(rows, d), Vector(rows)};
  int r = 0;
  for (int c = 0; c < base.num_clients(); ++c) {
    const auto& cl = base.client(c);
    pooled.features.middleRows(r, cl.features.rows()) = cl.features;
    pooled.labels.segment(r, cl.labels.size()) = cl.labels;
    r += static_cast<int>(cl.features.rows());
  }
  return theory::LogisticProblem(std::vector<theory::LogisticClient>(n, pooled), base.l2(),
                                 base.batch_size());
}

theory::QuadraticProblem replicated_clients(const theory::QuadraticProblem& q, int k) {
  std::vector<theory::QuadraticClient> clients;
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < q.num_clients(); ++c) clients.push_back(q.client(c));
  }
  return theory::QuadraticProblem(std::move(clients));
}

}  // namespace fedverify::claims
