#include "theory/closed_forms/gmm_identities.hpp"

#include <fmt/format.h>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

GmmMoments gmm_moments(const GmmClientData& data) {
  const auto n = data.basis.rows();
  if (n < 1 || data.residual.size() != n || data.residual_tilde.size() != n) {
    throw InputError(fmt::format("gmm data: {} basis rows, {} residuals, {} residuals at θ̃", n,
                                 data.residual.size(), data.residual_tilde.size()));
  }
  GmmMoments m;
  m.samples = static_cast<int>(n);
  m.psi = data.basis.transpose() * data.residual / static_cast<double>(n);
  const Matrix weighted = data.residual_tilde.cwiseAbs().asDiagonal() * data.basis;
  m.cov = symmetric_part(weighted.transpose() * weighted / static_cast<double>(n));
  return m;
}

// THEORY (M4): the objective of (3.12)
double gmm_penalised_moment(const GmmMoments& moments, const Vector& tau) {
  return tau.dot(moments.psi) - kGmmPenalty * tau.dot(moments.cov * tau);
}

// THEORY (M4): Lemma 1
GmmSupremum gmm_lemma1(const GmmMoments& moments) {
  const Vector w = moments.cov.llt().solve(moments.psi);
  return {moments.psi.dot(w), 2.0 * w};
}

GmmMoments averaged_moments(const std::vector<GmmMoments>& clients) {
  const auto m = clients.at(0).psi.size();
  GmmMoments avg{Vector::Zero(m), Matrix::Zero(m, m), 0};
  const double n = static_cast<double>(clients.size());
  for (const auto& c : clients) {
    avg.psi += c.psi / n;
    avg.cov += c.cov / n;
    avg.samples += c.samples;
  }
  return avg;
}

Matrix pooled_covariance(const std::vector<GmmMoments>& clients) {
  const auto m = clients.at(0).psi.size();
  Matrix pooled = Matrix::Zero(m, m);
  double total = 0;
  for (const auto& c : clients) {
    pooled += c.samples * c.cov;
    total += c.samples;
  }
  return pooled / total;
}

// THEORY (M4) (a)
double gmm_per_client_supremum(const std::vector<GmmMoments>& clients) {
  double sum = 0;
  for (const auto& c : clients) sum += gmm_lemma1(c).value;
  return sum / static_cast<double>(clients.size());
}

// THEORY (M4) (b)
double gmm_shared_supremum(const std::vector<GmmMoments>& clients) {
  return gmm_lemma1(averaged_moments(clients)).value;
}

// THEORY (M4) (c)
double gmm_weighted_norm(const Vector& psi, const Matrix& weight) {
  return psi.dot(weight.llt().solve(psi));
}

}  // namespace fedverify::theory
