#include "theory/problems/quadratic_game.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// Semi-definiteness up to round-off of the eigen-solver: −n ε ‖M‖ is still 0.
void require_psd(const Matrix& m, const std::string& field) {
  if (!m.allFinite()) throw InputError(fmt::format("{}: contains a non-finite entry", field));
  const double asym = (m - m.transpose()).cwiseAbs().maxCoeff();
  if (asym > 0.0)
    throw InputError(fmt::format("{}: not symmetric (max |M - Mᵀ| = {:.3g})", field, asym));
  if (m.size() == 0) return;
  const double lowest =
      Eigen::SelfAdjointEigenSolver<Matrix>(m, Eigen::EigenvaluesOnly).eigenvalues()(0);
  const double slack = static_cast<double>(m.rows()) * 1e-15 * m.cwiseAbs().maxCoeff();
  if (lowest < -slack) {
    throw InputError(
        fmt::format("{}: not positive semi-definite (smallest eigenvalue {:.6g})", field, lowest));
  }
}

void require_shape(const Matrix& m, int rows, int cols, const std::string& field) {
  if (m.rows() != rows || m.cols() != cols) {
    throw InputError(
        fmt::format("{}: shape {}x{}, expected {}x{}", field, m.rows(), m.cols(), rows, cols));
  }
}

}  // namespace

QuadraticGame::QuadraticGame(std::vector<QuadraticGameClient> clients)
    : clients_(std::move(clients)) {
  if (clients_.empty()) throw InputError("clients: need at least one client");
  p_ = static_cast<int>(clients_[0].a.rows());
  q_ = static_cast<int>(clients_[0].c.rows());
  if (p_ < 1) throw InputError("clients[0].A: empty (θ needs a dimension >= 1)");
  if (q_ < 1) throw InputError("clients[0].C: empty (τ needs a dimension >= 1)");
  for (int i = 0; i < num_clients(); ++i) {
    const auto& cl = clients_[i];
    const std::string at = fmt::format("clients[{}]", i);
    require_shape(cl.a, p_, p_, at + ".A");
    require_shape(cl.b, p_, q_, at + ".B");
    require_shape(cl.c, q_, q_, at + ".C");
    require_shape(cl.noise_cov, p_ + q_, p_ + q_, at + ".noise_cov");
    if (cl.a_linear.size() != p_) {
      throw InputError(fmt::format("{}.a: length {}, expected {}", at, cl.a_linear.size(), p_));
    }
    if (cl.c_linear.size() != q_) {
      throw InputError(fmt::format("{}.c: length {}, expected {}", at, cl.c_linear.size(), q_));
    }
    if (!cl.b.allFinite()) throw InputError(at + ".B: contains a non-finite entry");
    if (!cl.a_linear.allFinite()) throw InputError(at + ".a: contains a non-finite entry");
    if (!cl.c_linear.allFinite()) throw InputError(at + ".c: contains a non-finite entry");
    require_psd(cl.a, at + ".A");
    require_psd(cl.c, at + ".C");
    require_psd(cl.noise_cov, at + ".noise_cov");
  }
  Matrix mbar = Matrix::Zero(dim(), dim());
  Vector off = Vector::Zero(dim());
  for (int i = 0; i < num_clients(); ++i) {
    mbar += operator_matrix(i) / num_clients();
    off += operator_offset(i) / num_clients();
  }
  const Eigen::JacobiSVD<Matrix> svd(mbar);
  const Vector sv = svd.singularValues();
  const double smallest = sv(sv.size() - 1);
  if (!(smallest > 1e-12 * sv(0))) {
    throw InputError(fmt::format(
        "clients: the averaged game has no unique equilibrium (M̄ is singular: singular values "
        "{:.3g} … {:.3g})",
        sv(0), smallest));
  }
  equilibrium_ = -mbar.partialPivLu().solve(off);
}

Matrix QuadraticGame::operator_matrix(int i) const {
  const auto& cl = clients_[i];
  Matrix m(dim(), dim());
  m << cl.a, cl.b, -cl.b.transpose(), cl.c;
  return m;
}

Vector QuadraticGame::operator_offset(int i) const {
  Vector v(dim());
  v << clients_[i].a_linear, clients_[i].c_linear;
  return v;
}

Vector QuadraticGame::client_operator(int i, const Vector& z) const {
  return operator_matrix(i) * z + operator_offset(i);
}

}  // namespace fedverify::theory
