#include "theory/closed_forms/scafflsa_mean.hpp"

namespace fedverify::theory {

Vector scafflsa_fedavg_mean(const LinearSaProblem& problem, const RunSetting& setting) {
  const int d = problem.dim();
  const double n = problem.num_clients();
  const Vector& x_star = problem.solution();
  Matrix lhs = Matrix::Zero(d, d);
  Vector rhs = Vector::Zero(d);
  for (int c = 0; c < problem.num_clients(); ++c) {
    const Matrix step = Matrix::Identity(d, d) - setting.gamma * problem.mean_a(c);
    Matrix power = Matrix::Identity(d, d);
    for (int h = 0; h < setting.local_steps; ++h) power = step * power;  // (I − γĀ_c)^H
    const Matrix w = Matrix::Identity(d, d) - power;
    const Vector theta = problem.mean_a(c).partialPivLu().solve(problem.mean_b(c));  // θ_c
    lhs += w / n;
    rhs += w * (theta - x_star) / n;
  }
  return x_star + lhs.partialPivLu().solve(rhs);  // THEORY (L1), [SCAFFLSA]
}

}  // namespace fedverify::theory
