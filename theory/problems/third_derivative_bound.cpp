#include "theory/problems/third_derivative_bound.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <stdexcept>

#include "theory/problems/logistic_problem.hpp"

namespace fedverify::theory {

double third_derivative_bound(const Problem& problem) {
  switch (problem.kind()) {
    case ProblemKind::quadratic:
    case ProblemKind::linear_sa:
    case ProblemKind::least_squares:
      return 0.0;
    case ProblemKind::logistic:
      break;
  }
  const auto& p = dynamic_cast<const LogisticProblem&>(problem);
  double q = 0;
  for (int c = 0; c < p.num_clients(); ++c) {
    const Matrix& a = p.client(c).features;
    const Matrix s = a.transpose() * a / static_cast<double>(a.rows());
    const double lambda_max =
        Eigen::SelfAdjointEigenSolver<Matrix>(s, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    const double radius = a.rowwise().norm().maxCoeff();
    q = std::max(q, kLogisticThirdDerivativeMax * radius * lambda_max);  // THEORY (S5)
  }
  return q;
}

}  // namespace fedverify::theory
