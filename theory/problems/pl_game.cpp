#include "theory/problems/pl_game.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <utility>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols,
                   const std::string& field) {
  if (m.rows() != rows || m.cols() != cols) {
    throw InputError(
        fmt::format("{}: expected {}x{}, got {}x{}", field, rows, cols, m.rows(), m.cols()));
  }
  if (!m.allFinite()) throw InputError(fmt::format("{}: contains a non-finite entry", field));
}

Vector residual(const PlGameClient& c, const Vector& theta, const Vector& tau) {
  return c.c * tau - c.d * theta - c.e;
}

}  // namespace

PlGame::PlGame(Vector quartic, std::vector<PlGameClient> clients)
    : quartic_(std::move(quartic)), clients_(std::move(clients)) {
  if (clients_.empty()) throw InputError("clients: at least one client is required");
  p_ = static_cast<int>(quartic_.size());
  if (p_ == 0) throw InputError("quartic: theta needs at least one coordinate");
  if (!quartic_.allFinite() || quartic_.minCoeff() < 0)
    throw InputError("quartic: every kappa_j must be finite and >= 0");
  q_ = static_cast<int>(clients_[0].c.cols());
  if (q_ == 0) throw InputError("clients[0].C: tau needs at least one coordinate");
  Matrix ctc = Matrix::Zero(q_, q_);
  for (int i = 0; i < num_clients(); ++i) {
    const auto& c = clients_[i];
    const std::string at = fmt::format("clients[{}].", i);
    const Eigen::Index m = c.e.size();
    require_shape(c.a, p_, p_, at + "A");
    if ((c.a - c.a.transpose()).cwiseAbs().maxCoeff() > 0)
      throw InputError(at + "A: not symmetric");
    require_shape(c.g, p_, 1, at + "g");
    require_shape(c.c, m, q_, at + "C");
    require_shape(c.d, m, p_, at + "D");
    require_shape(c.e, m, 1, at + "e");
    ctc += c.c.transpose() * c.c / num_clients();
  }
  const double lowest =
      Eigen::SelfAdjointEigenSolver<Matrix>(ctc, Eigen::EigenvaluesOnly).eigenvalues()(0);
  if (!(lowest > 1e-12 * ctc.norm())) {
    throw InputError(fmt::format(
        "clients: the averaged game is not strongly concave in tau (smallest eigenvalue of mean "
        "C_i^T C_i is {:.3g})",
        lowest));
  }
}

double PlGame::value(int i, const Vector& z) const {
  const auto& c = clients_[i];
  const Vector theta = z.head(p_), tau = z.tail(q_);
  const double quartic = 0.25 * quartic_.dot(theta.array().pow(4).matrix());
  return quartic + 0.5 * theta.dot(c.a * theta) + c.g.dot(theta) -
         0.5 * residual(c, theta, tau).squaredNorm();
}

Vector PlGame::client_operator(int i, const Vector& z) const {
  const auto& c = clients_[i];
  const Vector theta = z.head(p_), tau = z.tail(q_);
  const Vector r = residual(c, theta, tau);
  Vector out(dim());
  out.head(p_) = quartic_.cwiseProduct(theta.array().cube().matrix()) + c.a * theta + c.g +
                 c.d.transpose() * r;
  out.tail(q_) = c.c.transpose() * r;
  return out;
}

Matrix PlGame::client_jacobian(int i, const Vector& z) const {
  const auto& c = clients_[i];
  const Vector theta = z.head(p_);
  Matrix j(dim(), dim());
  j.topLeftCorner(p_, p_) = c.a - c.d.transpose() * c.d;
  j.topLeftCorner(p_, p_).diagonal() += 3.0 * quartic_.cwiseProduct(theta.cwiseAbs2());
  j.topRightCorner(p_, q_) = c.d.transpose() * c.c;
  j.bottomLeftCorner(q_, p_) = -c.c.transpose() * c.d;
  j.bottomRightCorner(q_, q_) = c.c.transpose() * c.c;
  return j;
}

Vector PlGame::mean_operator(const Vector& z) const {
  Vector out = Vector::Zero(dim());
  for (int i = 0; i < num_clients(); ++i) out += client_operator(i, z);
  return out / num_clients();
}

Matrix PlGame::mean_jacobian(const Vector& z) const {
  Matrix out = Matrix::Zero(dim(), dim());
  for (int i = 0; i < num_clients(); ++i) out += client_jacobian(i, z);
  return out / num_clients();
}

PlGame nonconvex_pl_game(double h) {
  if (!(h >= 0) || !std::isfinite(h)) throw InputError("heterogeneity: must be finite and >= 0");
  // C_i: four directions whose mean C_iᵀC_i is I/2; K couples θ to τ (D_i = C_iK + hE_i).
  const double s = 1.0 / std::sqrt(2.0);
  const Matrix rows_c = (Matrix(4, 2) << 1, 0, 0, 1, s, s, s, -s).finished();
  const Matrix k = (Matrix(2, 2) << 2.0, 0.0, 0.0, 0.5).finished();
  const Matrix rows_e = (Matrix(4, 2) << 0.3, -0.2, -0.3, 0.2, 0.1, 0.4, -0.1, -0.4).finished();
  const Matrix abar = -Matrix::Identity(2, 2);
  const Vector gbar = (Vector(2) << 0.3, -0.1).finished();
  const Matrix delta = (Matrix(2, 2) << 0.5, 0.25, 0.25, -0.5).finished();
  const Matrix swap = (Matrix(2, 2) << 0.0, 0.25, 0.25, 0.0).finished();
  const Matrix deltas[4] = {delta, -delta, swap, -swap};
  const Matrix dg = (Matrix(4, 2) << 1, 0, -1, 0, 0, 1, 0, -1).finished();
  const double e[4] = {0.5, -0.3, 0.2, 0.1};
  std::vector<PlGameClient> clients;
  for (int i = 0; i < 4; ++i) {
    PlGameClient c;
    c.a = abar + h * deltas[i];
    c.g = gbar + 0.2 * h * dg.row(i).transpose();
    c.c = rows_c.row(i);
    c.d = rows_c.row(i) * k + h * rows_e.row(i);
    c.e = Vector::Constant(1, e[i]);
    clients.push_back(std::move(c));
  }
  return PlGame(Vector::Ones(2), std::move(clients));
}

}  // namespace fedverify::theory
