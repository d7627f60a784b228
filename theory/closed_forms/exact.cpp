#include "theory/closed_forms/exact.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::theory {

ExactMoments exact_moments(const QuadraticProblem& q, Algorithm algorithm, const StepSetting& s) {
  validate(algorithm, s);
  return algorithm_theory(algorithm).exact(q, s);
}

LocalSteps::LocalSteps(const Matrix& hessian, double gamma, int h) : steps(h) {
  const Eigen::SelfAdjointEigenSolver<Matrix> es(hessian);
  v = es.eigenvectors();
  a = es.eigenvalues();
  beta = Vector::Ones(a.size()) - gamma * a;
}

Matrix LocalSteps::in_basis(const Vector& diag) const {
  return v * diag.asDiagonal() * v.transpose();
}

Vector LocalSteps::geometric() const {
  Vector s = Vector::Zero(a.size());
  Vector p = Vector::Ones(a.size());
  for (int h = 0; h < steps; ++h) {
    s += p;
    p = p.cwiseProduct(beta);
  }
  return s;
}

Matrix LocalSteps::p() const { return in_basis(geometric()); }

Matrix LocalSteps::p_a() const { return in_basis(geometric().cwiseProduct(a)); }

Matrix LocalSteps::b_power() const { return in_basis(beta.array().pow(steps).matrix()); }

Matrix LocalSteps::noise_sum(const Matrix& s, const Vector& beta2) const {
  Matrix inner = v.transpose() * s * v;
  for (Eigen::Index j = 0; j < inner.cols(); ++j) {
    for (Eigen::Index i = 0; i < inner.rows(); ++i) {
      const double q = beta(i) * beta2(j);
      double sum = 0, pw = 1;
      for (int h = 0; h < steps; ++h) {
        sum += pw;
        pw *= q;
      }
      inner(i, j) *= sum;
    }
  }
  return v * inner * v.transpose();
}

void require_stationary(double rho, const StepSetting& s, const char* what) {
  if (!(rho < 1.0)) {
    throw InputError(fmt::format(
        "--gamma: no stationary distribution for {} at gamma = {} with H = {} (spectral radius "
        "of the round map = {:.6g} >= 1); decrease gamma",
        what, s.gamma, s.local_steps, rho));
  }
}

void require_finite(const AffineRoundMap& map, const StepSetting& s, const char* what) {
  if (!map.d.allFinite() || !map.g.allFinite() || !map.r.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of {} at gamma = {} with H = {} overflows double precision (the "
        "problem's matrices are too large for this step); decrease gamma or rescale the problem",
        what, s.gamma, s.local_steps));
  }
}

double symmetric_spectral_radius(const Matrix& d, double gamma) {
  const Vector ev = Eigen::SelfAdjointEigenSolver<Matrix>(d, Eigen::EigenvaluesOnly).eigenvalues();
  return (Vector::Ones(ev.size()) - gamma * ev).cwiseAbs().maxCoeff();
}

Matrix helmert_basis(int n) {
  Matrix e = Matrix::Zero(n, n - 1);
  for (int k = 1; k < n; ++k) {
    const double norm = std::sqrt(static_cast<double>(k) * (k + 1));
    for (int i = 0; i < k; ++i) e(i, k - 1) = 1.0 / norm;
    e(k, k - 1) = -static_cast<double>(k) / norm;
  }
  return e;
}

}  // namespace fedverify::theory
