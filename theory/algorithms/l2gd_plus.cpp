#include "theory/algorithms/l2gd_plus.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "theory/problems/personalised_objective.hpp"

namespace fedverify::theory {
namespace {

// Index arithmetic of the state [x | J | Ψ].
struct Layout {
  int n, d, m;
  Eigen::Index x(int i) const { return static_cast<Eigen::Index>(i) * d; }
  Eigen::Index j(int i, int t) const { return static_cast<Eigen::Index>(n) * d + (i * m + t) * d; }
  Eigen::Index psi(int i) const { return static_cast<Eigen::Index>(n) * d * (1 + m) + i * d; }
  Eigen::Index size() const { return static_cast<Eigen::Index>(n) * d * (2 + m); }
};

double term_sign(const FiniteSumSplit& split, int t) {
  return split.terms == 1 ? 0.0 : (t % 2 == 0 ? 1.0 : -1.0);
}

Matrix term_hessian(const QuadraticProblem& q, const FiniteSumSplit& split, int i, int t) {
  return (1 + split.spread * term_sign(split, t)) * q.client(i).hessian;
}

void check(const QuadraticProblem& q, const FiniteSumSplit& split, const VarianceReducedRule& r) {
  if (split.terms < 1 || (split.terms > 1 && split.terms % 2 != 0)) {
    throw std::invalid_argument("FiniteSumSplit.terms: 1 or even");
  }
  if (!(split.spread >= 0 && split.spread < 1)) {
    throw std::invalid_argument("FiniteSumSplit.spread: in [0, 1)");
  }
  if (r.working < 0 || r.working > q.num_clients()) {
    throw std::invalid_argument("VarianceReducedRule.working: in [0, n]");
  }
}

}  // namespace

std::vector<AffineBranch> variance_reduced_branches(const QuadraticProblem& q, const L2gdSetting& s,
                                                    const FiniteSumSplit& split,
                                                    const VarianceReducedRule& rule) {
  validate(s);
  check(q, split, rule);
  const int n = q.num_clients();
  const int d = q.dim();
  const int m = split.terms;
  const Layout at{n, d, m};
  const Eigen::Index size = at.size();
  const int tau = rule.working == 0 ? n : rule.working;
  const double work = static_cast<double>(tau) / n;  // q
  const double step = s.alpha / n;
  const Matrix x_lambda = personalised_optimum(q, s.lambda);
  const Matrix eye = Matrix::Identity(d, d);
  std::vector<AffineBranch> branches;

  // Local branches: a working set S and one term per working client.
  const std::vector<std::vector<int>> sets = subsets_of_size(n, tau);
  int draws = 1;
  for (int a = 0; a < tau; ++a) draws *= m;
  const double local_probability = (1 - s.p) / static_cast<double>(sets.size() * draws);
  for (const std::vector<int>& set : sets) {
    for (int code = 0; code < draws; ++code) {
      AffineBranch b{local_probability, Matrix::Identity(size, size), Vector::Zero(size)};
      std::vector<int> term(n, -1);
      for (int a = 0, rest = code; a < tau; ++a, rest /= m) term[set[a]] = rest % m;
      for (int i = 0; i < n; ++i) {
        const Eigen::Index xi = at.x(i);
        if (!rule.control_variates) {  // L2SGD: x_i ← x_i − α/(n(1−p)) ∇f_ij(x_i)
          if (term[i] < 0) continue;
          const Matrix a = term_hessian(q, split, i, term[i]);
          const double beta = step / (1 - s.p);
          b.map.block(xi, xi, d, d) -= beta * a;
          b.offset.segment(xi, d) = -beta * a * (x_lambda.col(i) - q.client(i).optimum);
          continue;
        }
        // −(α/n)(J̄_i + Ψ_i) for every client (e_J, e_Ψ: the memories' errors)
        for (int t = 0; t < m; ++t) b.map.block(xi, at.j(i, t), d, d) -= (step / m) * eye;
        b.map.block(xi, at.psi(i), d, d) -= step * eye;
        if (term[i] < 0) continue;
        const int t = term[i];
        const Matrix a = term_hessian(q, split, i, t);
        const double scale = step / (work * (1 - s.p));
        b.map.block(xi, xi, d, d) -= scale * a;  // ∇f_ij − ∇f_ij(x_i(λ)) = A_ij e_x,i
        b.map.block(xi, at.j(i, t), d, d) += scale * eye;  // − e_J,ij
        // J_ij ← ∇f_ij(x_i) at the pre-step x: e_J,ij ← A_ij e_x,i
        b.map.block(at.j(i, t), 0, d, size).setZero();
        b.map.block(at.j(i, t), xi, d, d) = a;
      }
      branches.push_back(std::move(b));
    }
  }

  // The averaging branch.
  AffineBranch avg{s.p, Matrix::Identity(size, size), Vector::Zero(size)};
  Matrix pull = Matrix::Zero(static_cast<Eigen::Index>(n) * d, size);  // rows: λ(e_x,i − ē_x)
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      pull.block(at.x(i), at.x(k), d, d) = s.lambda * ((i == k ? 1.0 : 0.0) - 1.0 / n) * eye;
    }
  }
  if (!rule.control_variates) {  // L2SGD: x_i ← x_i − θ(x_i − x̄), θ = αλ/(np)
    const double theta = step / s.p;
    avg.map.topRows(static_cast<Eigen::Index>(n) * d) -= theta * pull;
    const Vector mean = client_average(x_lambda);
    for (int i = 0; i < n; ++i) {
      avg.offset.segment(at.x(i), d) = -(s.alpha * s.lambda / (n * s.p)) * (x_lambda.col(i) - mean);
    }
  } else {
    Matrix x_rows = Matrix::Zero(static_cast<Eigen::Index>(n) * d, size);
    for (int i = 0; i < n; ++i) {
      const Eigen::Index xi = at.x(i);
      x_rows.block(xi, xi, d, d) = eye;
      x_rows.block(xi, 0, d, size) -= (step / s.p) * pull.block(xi, 0, d, size);
      x_rows.block(xi, at.psi(i), d, d) -= step * (1 - 1 / s.p) * eye;  // −(α/n)(1 − 1/p) e_Ψ,i
      for (int t = 0; t < m; ++t) x_rows.block(xi, at.j(i, t), d, d) -= (step / m) * eye;
    }
    for (int i = 0; i < n; ++i) {
      const Eigen::Index rows = at.psi(i);
      if (rule.psi_after_step) {  // λ(x_i^{k+1} − x̄^k): e_Ψ,i ← λ(e'_x,i − ē_x)
        avg.map.block(rows, 0, d, size) = s.lambda * x_rows.block(at.x(i), 0, d, size);
        for (int k = 0; k < n; ++k) {
          avg.map.block(rows, at.x(k), d, d) -= (s.lambda / n) * eye;
        }
      } else {
        avg.map.block(rows, 0, d, size) = pull.block(at.x(i), 0, d, size);
      }
    }
    avg.map.topRows(static_cast<Eigen::Index>(n) * d) = x_rows;
  }
  branches.push_back(std::move(avg));
  return branches;
}

Vector variance_reduced_start(const QuadraticProblem& q, const L2gdSetting& s,
                              const FiniteSumSplit& split) {
  const int n = q.num_clients();
  const int d = q.dim();
  const Layout at{n, d, split.terms};
  const Matrix x_lambda = personalised_optimum(q, s.lambda);
  const Vector mean = client_average(x_lambda);
  Vector e0(at.size());
  for (int i = 0; i < n; ++i) {
    e0.segment(at.x(i), d) = -x_lambda.col(i);
    for (int t = 0; t < split.terms; ++t) {
      e0.segment(at.j(i, t), d) =
          -term_hessian(q, split, i, t) * (x_lambda.col(i) - q.client(i).optimum);
    }
    e0.segment(at.psi(i), d) = -s.lambda * (x_lambda.col(i) - mean);
  }
  return e0;
}

VarianceReducedConstants variance_reduced_constants(double mu, double l_tilde, int clients,
                                                    int terms, double working_fraction,
                                                    const L2gdSetting& s) {
  VarianceReducedConstants k;
  const double n = clients;
  k.l_tilde = l_tilde;
  k.l_cal = std::max(l_tilde / (working_fraction * (1 - s.p)), s.lambda / s.p) / n;  // (P7)
  k.alpha_max = 1 / (4 * k.l_cal);                                                   // (P7)
  k.mu_term = 1 - s.alpha * mu / n;                                                  // (P7)
  k.memory_refresh = working_fraction * (1 - s.p) / terms;                           // (P7)
  k.coin_refresh = s.p;                                                              // (P7)
  return k;
}

double variance_reduced_rate_bound(const VarianceReducedConstants& k, double c) {
  return std::max({k.mu_term, 1 - c * k.memory_refresh, 1 - c * k.coin_refresh});  // (P7)
}

double largest_rate_constant(const VarianceReducedConstants& k, double rho) {
  if (rho >= 1) return 0;
  if (rho <= k.mu_term) return 1;
  return std::min(1.0, (1 - rho) / std::min(k.memory_refresh, k.coin_refresh));
}

}  // namespace fedverify::theory
