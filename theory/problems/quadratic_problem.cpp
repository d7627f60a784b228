#include "theory/problems/quadratic_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// Relative asymmetry accepted in a "symmetric" input matrix: JSON written by another tool may
// round each entry to ~15 significant digits, so asymmetry of a few ulps is not an error.
constexpr double kSymmetryTolerance = 1e-10;

void require_finite(const Matrix& m, const std::string& field) {
  if (!m.allFinite()) throw InputError(fmt::format("{}: contains a non-finite entry", field));
}

void require_symmetric(const Matrix& m, const std::string& field) {
  const double scale = std::max(m.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const double asym = (m - m.transpose()).cwiseAbs().maxCoeff();
  if (asym > kSymmetryTolerance * scale) {
    throw InputError(fmt::format("{}: not symmetric (max |M - Mᵀ| = {:.3g})", field, asym));
  }
}

}  // namespace

QuadraticProblem::QuadraticProblem(std::vector<QuadraticClient> clients)
    : clients_(std::move(clients)) {
  if (clients_.empty()) throw InputError("clients: need at least one client");
  dim_ = static_cast<int>(clients_[0].optimum.size());
  if (dim_ < 1) throw InputError("clients[0].optimum: empty vector");
  mu_ = std::numeric_limits<double>::infinity();
  l_ = 0.0;
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    auto& cl = clients_[c];
    const std::string at = fmt::format("clients[{}]", c);
    if (cl.optimum.size() != dim_) {
      throw InputError(fmt::format("{}.optimum: length {} but clients[0].optimum has length {}", at,
                                   cl.optimum.size(), dim_));
    }
    if (cl.hessian.rows() != dim_ || cl.hessian.cols() != dim_) {
      throw InputError(fmt::format("{}.hessian: shape {}x{}, expected {}x{}", at, cl.hessian.rows(),
                                   cl.hessian.cols(), dim_, dim_));
    }
    if (cl.noise_cov.rows() != dim_ || cl.noise_cov.cols() != dim_) {
      throw InputError(fmt::format("{}.noise_cov: shape {}x{}, expected {}x{}", at,
                                   cl.noise_cov.rows(), cl.noise_cov.cols(), dim_, dim_));
    }
    if (!cl.optimum.allFinite()) throw InputError(at + ".optimum: contains a non-finite entry");
    require_finite(cl.hessian, at + ".hessian");
    require_finite(cl.noise_cov, at + ".noise_cov");
    require_symmetric(cl.hessian, at + ".hessian");
    require_symmetric(cl.noise_cov, at + ".noise_cov");
    cl.hessian = symmetric_part(cl.hessian);
    cl.noise_cov = symmetric_part(cl.noise_cov);

    const Eigen::SelfAdjointEigenSolver<Matrix> eh(cl.hessian);
    const double hmin = eh.eigenvalues().minCoeff();
    const double hmax = eh.eigenvalues().maxCoeff();
    if (!(hmin > 0.0)) {
      throw InputError(
          fmt::format("{}.hessian: not positive definite (smallest eigenvalue {:.6g})", at, hmin));
    }
    mu_ = std::min(mu_, hmin);
    l_ = std::max(l_, hmax);

    const Eigen::SelfAdjointEigenSolver<Matrix> es(cl.noise_cov, Eigen::EigenvaluesOnly);
    const double smin = es.eigenvalues().minCoeff();
    // Eigenvalues of a PSD matrix computed in floating point may be −O(ε‖S‖).
    const double psd_slack = 64 * std::numeric_limits<double>::epsilon() *
                             std::max(es.eigenvalues().cwiseAbs().maxCoeff(), 1e-300);
    if (smin < -psd_slack) {
      throw InputError(fmt::format(
          "{}.noise_cov: not positive semi-definite (smallest eigenvalue {:.6g})", at, smin));
    }
    // Pivoted LDLᵀ (backward stable for PSD matrices): S = Pᵀ L D Lᵀ P, R = Pᵀ L √D; a singular
    // S may give pivots of −O(ε‖S‖), clamped at 0.
    const Eigen::LDLT<Matrix> ldlt(cl.noise_cov);
    const Vector root = ldlt.vectorD().cwiseMax(0.0).cwiseSqrt();
    const Matrix lower = ldlt.matrixL();
    noise_factors_.push_back(ldlt.transpositionsP().transpose() * (lower * root.asDiagonal()));
  }
}

double QuadraticProblem::value(int c, const Vector& x) const {
  const Vector r = x - clients_[c].optimum;
  return 0.5 * r.dot(clients_[c].hessian * r);
}

Vector QuadraticProblem::gradient(int c, const Vector& x) const {
  return clients_[c].hessian * (x - clients_[c].optimum);
}

Matrix QuadraticProblem::hessian(int c, const Vector& /*x*/) const { return clients_[c].hessian; }

Vector QuadraticProblem::third_derivative(int /*c*/, const Vector& /*x*/,
                                          const Matrix& /*m*/) const {
  return Vector::Zero(dim_);
}

Matrix QuadraticProblem::noise_covariance(int c, const Vector& /*x*/) const {
  return clients_[c].noise_cov;
}

}  // namespace fedverify::theory
