#include "verify/claims/problems/personalised_problems.hpp"

#include <Eigen/Eigenvalues>
#include <vector>

#include "theory/base/rng.hpp"

namespace fedverify::claims {

using estimators::Purpose;
using estimators::Stream;

theory::QuadraticProblem make_quadratic(int n, int d, double mu, double l, std::uint64_t seed) {
  Stream s(seed, Purpose::test);
  std::vector<theory::QuadraticClient> clients;
  for (int i = 0; i < n; ++i) {
    Matrix w(d, d);
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b) w(a, b) = s.normal();
    const Eigen::SelfAdjointEigenSolver<Matrix> basis(w * w.transpose());
    Vector spectrum(d);
    for (int a = 0; a < d; ++a) spectrum[a] = d == 1 ? l : mu + (l - mu) * a / (d - 1.0);
    const Matrix& v = basis.eigenvectors();
    Vector b(d);
    for (int a = 0; a < d; ++a) b[a] = 2 * s.normal();
    clients.push_back(
        {symmetric_part(v * spectrum.asDiagonal() * v.transpose()), b, Matrix::Zero(d, d)});
  }
  return theory::QuadraticProblem(clients);
}

theory::LogisticProblem make_logistic(int n, int m, int d, double l2, std::uint64_t seed) {
  Stream s(seed, Purpose::test);
  Vector w(d);
  for (int a = 0; a < d; ++a) w[a] = s.normal();
  std::vector<theory::LogisticClient> clients;
  for (int i = 0; i < n; ++i) {
    Vector shift(d);
    for (int a = 0; a < d; ++a) shift[a] = s.normal();
    theory::LogisticClient c{Matrix(m, d), Vector(m)};
    for (int j = 0; j < m; ++j) {
      for (int a = 0; a < d; ++a) c.features(j, a) = shift[a] + s.normal();
      c.labels[j] = c.features.row(j).dot(w) + s.normal() > 0 ? 1.0 : -1.0;
    }
    clients.push_back(c);
  }
  return theory::LogisticProblem(clients, l2, 1);
}

}  // namespace fedverify::claims
