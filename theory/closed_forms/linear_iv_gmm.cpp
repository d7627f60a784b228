#include "theory/closed_forms/linear_iv_gmm.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

GmmEquilibrium gmm_estimator(const Matrix& g, const Matrix& w, const Vector& b) {
  const Eigen::LLT<Matrix> llt(w);
  if (llt.info() != Eigen::Success) throw InputError("W: not positive definite");
  const Matrix whitened_g = llt.matrixL().solve(g);  // L⁻¹G
  const Vector whitened_b = llt.matrixL().solve(b);  // L⁻¹b
  const Eigen::ColPivHouseholderQR<Matrix> qr(whitened_g);
  if (qr.rank() < g.cols()) throw InputError("G: not of full column rank");
  GmmEquilibrium out;
  out.theta = qr.solve(whitened_b);              // argmin ‖L⁻¹(b − Gθ)‖, (M5)
  out.tau = 2.0 * llt.solve(b - g * out.theta);  // τ(θ) = 2W⁻¹(b − Gθ)
  return out;
}

}  // namespace fedverify::theory
