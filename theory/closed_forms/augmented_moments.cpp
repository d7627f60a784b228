#include "theory/closed_forms/augmented_moments.hpp"

#include <fmt/format.h>

#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

namespace {

double spectral_radius(const Matrix& m) {
  return m.size() == 0 ? 0.0 : m.eigenvalues().cwiseAbs().maxCoeff();
}

}  // namespace

Matrix kron(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      out.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
    }
  }
  return out;
}

Matrix matrix_power(const Matrix& m, int k) {
  Matrix out = Matrix::Identity(m.rows(), m.cols());
  for (int i = 0; i < k; ++i) out = m * out;
  return out;
}

ExactMoments augmented_stationary_moments(const Matrix& mean_map, const Matrix& t,
                                          const Matrix& noise, double gamma) {
  const Eigen::Index d1 = mean_map.rows(), d = d1 - 1, n2 = d1 * d1;
  if (!t.allFinite() || !mean_map.allFinite() || !noise.allFinite()) {
    throw InputError(fmt::format("--gamma: {} gives non-finite round moments", gamma));
  }
  ExactMoments out;
  const Matrix f = mean_map.topLeftCorner(d, d);
  out.spectral_radius = spectral_radius(f);
  // T's block on the entries (i, j), i, j < d, of U: the second moments of z.
  std::vector<Eigen::Index> zz;
  for (Eigen::Index j = 0; j < d; ++j) {
    for (Eigen::Index i = 0; i < d; ++i) zz.push_back(i + j * d1);
  }
  const double second_radius = spectral_radius(t(zz, zz));
  if (out.spectral_radius >= 1.0 || second_radius >= 1.0) {
    throw InputError(fmt::format(
        "--gamma: {} gives no stationary law (spectral radius {:.4g} of the mean map, {:.4g} of "
        "the second moments)",
        gamma, out.spectral_radius, second_radius));
  }
  out.mean = (Matrix::Identity(d, d) - f).partialPivLu().solve(mean_map.topRightCorner(d, 1));
  // (I − T) vec U = vec Q on every entry but U_{dd} = 1.
  const Eigen::Index last = d + d * d1;
  std::vector<Eigen::Index> rest;
  for (Eigen::Index i = 0; i < n2; ++i) {
    if (i != last) rest.push_back(i);
  }
  const Matrix a = Matrix::Identity(n2, n2) - t;
  const Vector q = Eigen::Map<const Vector>(noise.data(), n2);
  const Vector rhs = q(rest) - a(rest, last);
  const Vector solved = Matrix(a(rest, rest)).partialPivLu().solve(rhs);
  Vector u(n2);
  u(rest) = solved;
  u(last) = 1.0;
  const Matrix second = Eigen::Map<const Matrix>(u.data(), d1, d1).topLeftCorner(d, d);
  out.cov = symmetric_part(second - out.mean * out.mean.transpose());
  return out;
}

}  // namespace fedverify::theory
