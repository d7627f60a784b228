// The GMM identities (THEORY M4). Expected values are built independently of the code under test:
// - a one-function class (m = 1) on three hand-written samples: ψ, C, the sup ψ²/C at 2ψ/C;
// - on random data: the objective never exceeds Lemma 1's sup at random points, and the deficit
//   there is the exact quadratic ¼(τ − τ*)ᵀC(τ − τ*) (completing the square by hand);
// - (a) is the sup of a separable sum and (b) of the averaged objective: checked at random
//   points, with (a) ≥ (b), equality for identical clients, and the pooled covariance equal to C̄
//   when every client has the same number of samples.
// Round-off: solves of condition κ ≲ 1e3 here, values of size ≲ 10: 1e-10 absolute is ≫ nεκ.
#include "theory/closed_forms/gmm_identities.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

constexpr double kTol = 1e-10;

TEST(GmmIdentities, OneFunctionByHand) {
  // f(z) = z on Z = (1, 2, −1), residuals r = (0.5, −1, 2), r̃ = (1, 0.5, −1).
  GmmClientData d;
  d.basis = Matrix{{1.0}, {2.0}, {-1.0}};
  d.residual = Vector{{0.5, -1.0, 2.0}};
  d.residual_tilde = Vector{{1.0, 0.5, -1.0}};
  const GmmMoments m = gmm_moments(d);
  const double psi = (0.5 - 2.0 - 2.0) / 3.0;             // Σ z r / n
  const double c = (1.0 * 1.0 + 4.0 * 0.25 + 1.0) / 3.0;  // Σ z² r̃² / n
  EXPECT_NEAR(m.psi(0), psi, 1e-15);
  EXPECT_NEAR(m.cov(0, 0), c, 1e-15);
  const GmmSupremum s = gmm_lemma1(m);
  EXPECT_NEAR(s.value, psi * psi / c, 1e-15);
  EXPECT_NEAR(s.argmax(0), 2.0 * psi / c, 1e-15);
  // sup_τ τψ − ¼τ²C by hand: derivative ψ − ½τC = 0.
  const double tau = 2.0 * psi / c;
  EXPECT_NEAR(gmm_penalised_moment(m, Vector::Constant(1, tau)), tau * psi - 0.25 * tau * tau * c,
              1e-15);
}

std::vector<GmmMoments> random_clients(int n, int m, bool identical, bool equal_sizes) {
  estimators::Stream s(5, estimators::Purpose::test);
  std::vector<GmmMoments> out;
  GmmClientData first;
  for (int i = 0; i < n; ++i) {
    const int samples = equal_sizes ? 30 : 20 + 15 * i;
    GmmClientData d;
    d.basis = verify::random_matrix(s, samples, m);
    d.residual = verify::random_matrix(s, samples, 1).col(0) + Vector::Constant(samples, 0.3 * i);
    d.residual_tilde = verify::random_matrix(s, samples, 1).col(0);
    if (i == 0) first = d;
    out.push_back(gmm_moments(identical ? first : d));
  }
  return out;
}

TEST(GmmIdentities, LemmaOneIsTheSupremumByCompletingTheSquare) {
  estimators::Stream s(9, estimators::Purpose::test);
  for (const GmmMoments& c : random_clients(3, 4, false, false)) {
    const GmmSupremum sup = gmm_lemma1(c);
    EXPECT_NEAR(gmm_penalised_moment(c, sup.argmax), sup.value, kTol);
    for (int k = 0; k < 20; ++k) {
      const Vector tau = sup.argmax + verify::random_matrix(s, 4, 1).col(0);
      const Vector d = tau - sup.argmax;
      const double value = gmm_penalised_moment(c, tau);
      EXPECT_LT(value, sup.value);
      EXPECT_NEAR(sup.value - value, 0.25 * d.dot(c.cov * d), kTol);
    }
  }
}

TEST(GmmIdentities, FederatedCandidates) {
  estimators::Stream s(10, estimators::Purpose::test);
  const int n = 4, m = 3;
  const auto clients = random_clients(n, m, false, false);
  const double a = gmm_per_client_supremum(clients);
  const double b = gmm_shared_supremum(clients);
  // (a): each client's own sup, averaged; the separable objective at any (τ_i) stays below it.
  double a_by_hand = 0;
  for (const auto& c : clients) {
    a_by_hand += c.psi.dot(c.cov.inverse() * c.psi) / n;
  }
  EXPECT_NEAR(a, a_by_hand, kTol);
  // (b): the averaged objective is the game's (1/N)Σ_i objective_i at every τ.
  const GmmMoments avg = averaged_moments(clients);
  for (int k = 0; k < 10; ++k) {
    const Vector tau = verify::random_matrix(s, m, 1).col(0);
    double game = 0;
    for (const auto& c : clients) game += gmm_penalised_moment(c, tau) / n;
    EXPECT_NEAR(gmm_penalised_moment(avg, tau), game, kTol);
    EXPECT_LE(game, b + kTol);
  }
  EXPECT_NEAR(b, avg.psi.dot(avg.cov.inverse() * avg.psi), kTol);
  EXPECT_NEAR(gmm_weighted_norm(avg.psi, avg.cov), b, kTol);
  EXPECT_GT(a, b);  // heterogeneous clients: more freedom, larger sup
  const auto same = random_clients(n, m, true, true);
  EXPECT_NEAR(gmm_per_client_supremum(same), gmm_shared_supremum(same), kTol);
  // Pooled covariance: sample-weighted; equal to C̄ for equal sizes only.
  EXPECT_LT((pooled_covariance(random_clients(n, m, false, true)) -
             averaged_moments(random_clients(n, m, false, true)).cov)
                .norm(),
            kTol);
  EXPECT_GT((pooled_covariance(clients) - avg.cov).norm(), 1e-3);
}

TEST(GmmIdentities, RefusesMismatchedData) {
  GmmClientData d;
  d.basis = Matrix::Ones(3, 2);
  d.residual = Vector::Ones(2);
  d.residual_tilde = Vector::Ones(3);
  EXPECT_THROW(gmm_moments(d), InputError);
}

}  // namespace
}  // namespace fedverify::theory
