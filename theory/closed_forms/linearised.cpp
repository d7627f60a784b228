#include "theory/closed_forms/linearised.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <utility>
#include <vector>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/optimum.hpp"

namespace fedverify::theory {

QuadraticProblem linearised_problem(const Problem& problem, const Vector& x_star) {
  const int d = problem.dim();
  std::vector<QuadraticClient> clients;
  clients.reserve(static_cast<std::size_t>(problem.num_clients()));
  for (int c = 0; c < problem.num_clients(); ++c) {
    Matrix a = problem.hessian(c, x_star);  // A_c = ∇²f_c(x*)                   THEORY (L3)
    const Eigen::LLT<Matrix> llt(a);
    if (!a.allFinite() || llt.info() != Eigen::Success) {
      throw InputError(fmt::format(
          "--control-variate: the linearised twin needs every client's Hessian at x* positive "
          "definite; client {}'s is not (give l2 > 0)",
          c));
    }
    Vector theta = x_star - llt.solve(problem.gradient(c, x_star));  // θ_c     THEORY (L3)
    clients.push_back({std::move(a), std::move(theta), Matrix::Zero(d, d)});
  }
  return QuadraticProblem(std::move(clients));
}

LinearSaProblem per_sample_linearisation(const LogisticProblem& problem, const Vector& x_star) {
  std::vector<LeastSquaresClient> clients;
  for (int c = 0; c < problem.num_clients(); ++c) {
    const LogisticClient& data = problem.client(c);
    const Matrix signed_rows = data.labels.asDiagonal() * data.features;  // ã_jᵀ
    LeastSquaresClient ls{signed_rows, Vector(signed_rows.rows())};
    for (Eigen::Index j = 0; j < signed_rows.rows(); ++j) {
      const double t = signed_rows.row(j).dot(x_star);  // t_j                 THEORY (§6), (L3)
      const double h = logistic_d2(t);
      const double alpha = -logistic_d1(t) + h * t;
      ls.features.row(j) *= std::sqrt(h);
      ls.targets(j) = alpha / std::sqrt(h);
    }
    clients.push_back(std::move(ls));
  }
  return {std::move(clients), problem.l2(), problem.batch_size()};
}

Vector linearised_stationary_mean(const Problem& problem, Algorithm algorithm,
                                  const RunSetting& setting) {
  const AlgorithmDescriptor& descriptor = describe(algorithm);
  const AlgorithmTheory* forms = find_algorithm_theory(algorithm);
  if (descriptor.family != AlgorithmFamily::chain || forms == nullptr || !forms->has_exact()) {
    throw InputError(fmt::format(
        "--control-variate: linearised needs the exact mean of the twin, which --algo {} does "
        "not have",
        descriptor.name()));
  }
  if (descriptor.reads(AlgorithmOption::server) && !has_closed_forms(setting)) {
    throw InputError(fmt::format(
        "--control-variate: linearised needs the exact mean of the twin, which fedopt has for "
        "linear optimisers only (server sgd with any step and momentum, client sgd without "
        "momentum or fedprox), not for --server {} --client {}",
        setting.server.text(), setting.client.text()));
  }
  if (problem.kind() == ProblemKind::quadratic) {
    return exact_moments(dynamic_cast<const QuadraticProblem&>(problem), algorithm, setting).mean;
  }
  return exact_moments(linearised_problem(problem, minimizer(problem)), algorithm, setting).mean;
}

}  // namespace fedverify::theory
