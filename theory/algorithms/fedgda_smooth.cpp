#include "theory/algorithms/fedgda_smooth.hpp"

#include <Eigen/Eigenvalues>

#include <stdexcept>
#include <vector>

#include "theory/algorithms/fedgda.hpp"

namespace fedverify::theory {
namespace {

Vector step_sizes(const PlGame& game, const GdaSetting& s) {
  Vector d(game.dim());
  d.head(game.theta_dim()).setConstant(s.alpha_theta);
  d.tail(game.tau_dim()).setConstant(s.alpha_tau);
  return d;
}

}  // namespace

GdaRound fedgda_round(const PlGame& game, const GdaSetting& s, const Vector& z,
                      bool with_jacobian) {
  validate(s);
  const int n = game.dim();
  const Vector d = step_sizes(game, s);
  GdaRound out{Vector::Zero(n), with_jacobian ? Matrix::Zero(n, n) : Matrix()};
  for (int i = 0; i < game.num_clients(); ++i) {
    Vector y = z;
    Matrix product = Matrix::Identity(n, n);  // Π (I − D J_i(y_r)), newest factor on the left
    for (int r = 0; r < s.local_steps; ++r) {
      if (with_jacobian) {
        product = (Matrix::Identity(n, n) - d.asDiagonal() * game.client_jacobian(i, y)) * product;
      }
      y -= d.cwiseProduct(game.client_operator(i, y));
    }
    out.z += y / game.num_clients();
    if (with_jacobian) out.jacobian += product / game.num_clients();
  }
  return out;
}

Vector fedgda_fixed_point(const PlGame& game, const GdaSetting& s, const Vector& start) {
  Vector z = start;
  const Matrix identity = Matrix::Identity(game.dim(), game.dim());
  for (int it = 0; it < 50; ++it) {
    const GdaRound round = fedgda_round(game, s, z, true);
    const Vector gap = round.z - z;
    const bool converged = gap.norm() <= 1e-14 * (1.0 + z.norm());
    z += (identity - round.jacobian).fullPivLu().solve(gap);
    if (!z.allFinite()) break;
    if (converged)
      return z;  // one polishing step past the tolerance: round-off is all that is left
  }
  throw std::runtime_error("fedgda_fixed_point: Newton did not converge");
}

double fedgda_round_spectral_radius(const PlGame& game, const GdaSetting& s, const Vector& z) {
  const Matrix j = fedgda_round(game, s, z, true).jacobian;
  return Eigen::EigenSolver<Matrix>(j, false).eigenvalues().cwiseAbs().maxCoeff();
}

Vector fedgda_smooth_offset_first_order(const PlGame& game, const GdaSetting& s,
                                        const Vector& z_star) {
  std::vector<Matrix> jacobians;
  std::vector<Vector> operators;
  for (int i = 0; i < game.num_clients(); ++i) {
    jacobians.push_back(game.client_jacobian(i, z_star));
    operators.push_back(game.client_operator(i, z_star));
  }
  return fedgda_offset_first_order(jacobians, operators, game.theta_dim(), s);
}

}  // namespace fedverify::theory
