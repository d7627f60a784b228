// The factored noise map (linear_sa_factors.hpp) against the per-sample ΔA form of THEORY (L1):
// numerical ranks, the round-off of the cancellation, and which clients keep the per-sample form.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "theory/problems/linear_sa_factors.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify {
namespace {

using theory::LinearSaClient;

Matrix gaussian(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols) {
  std::normal_distribution<double> normal;
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// Samples A_k = G_k H_kᵀ of rank ranks[k] (d × r Gaussian factors; rank d: a dense Gaussian).
LinearSaClient client_of_ranks(std::mt19937_64& rng, int d, const std::vector<int>& ranks) {
  LinearSaClient c;
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  for (const int r : ranks) {
    theory::LinearSaSample s;
    s.weight = weight(rng);
    s.a = r == d ? gaussian(rng, d, d)
                 : Matrix(gaussian(rng, d, r) * gaussian(rng, d, r).transpose());
    s.b = gaussian(rng, d, 1);
    c.samples.push_back(std::move(s));
  }
  return c;
}

Vector probabilities(const LinearSaClient& c) {
  Vector p(static_cast<Eigen::Index>(c.samples.size()));
  for (std::size_t k = 0; k < c.samples.size(); ++k)
    p(static_cast<Eigen::Index>(k)) = c.samples[k].weight;
  return p / p.sum();
}

Matrix mean_a(const LinearSaClient& c, const Vector& p) {
  Matrix a = Matrix::Zero(c.samples[0].a.rows(), c.samples[0].a.cols());
  for (std::size_t k = 0; k < c.samples.size(); ++k)
    a += p(static_cast<Eigen::Index>(k)) * c.samples[k].a;
  return a;
}

// The round-off bound of the factored form: its terms Σ_k π_k A_k S A_kᵀ and Ā S Āᵀ are products
// with inner dimensions d (W = SV, ĀS) and R (XUᵀ) or d, each accurate to (inner dimension)·ε
// times the product of the norms, and the cancellation leaves that error relative to the larger
// terms, Σ_k π_k ‖A_k‖²_F ‖S‖_F, not to the (smaller) result; the rank truncation adds
// 2 kRankUlps d ε ‖A_k‖²_F ‖S‖_F per sample; the per-sample form's own error is below the same.
double cancellation_bound(const LinearSaClient& c, const Vector& p, const Matrix& abar,
                          const Matrix& s, Eigen::Index total_rank) {
  const double d = static_cast<double>(abar.rows());
  double big = abar.squaredNorm();
  for (std::size_t k = 0; k < c.samples.size(); ++k) {
    big += p(static_cast<Eigen::Index>(k)) * c.samples[k].a.squaredNorm();
  }
  const double inner = 2 * d + static_cast<double>(total_rank) + 2 * theory::kRankUlps * d;
  return inner * std::numeric_limits<double>::epsilon() * big * s.norm();
}

TEST(LinearSaFactors, FactoredSpreadMatchesPerSampleOnLowRankSamples) {
  std::mt19937_64 rng(11);
  const int d = 12;  // ranks up to d/4 = 3 are factored
  for (const std::vector<int>& ranks :
       {std::vector<int>(40, 1), std::vector<int>{1, 2, 3, 0, 1, 3, 2, 2, 1, 1}}) {
    const LinearSaClient c = client_of_ranks(rng, d, ranks);
    const Vector p = probabilities(c);
    const Matrix abar = mean_a(c, p);
    const auto f = theory::factor_samples(c, p, abar);
    ASSERT_TRUE(f.has_value());
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      EXPECT_EQ(f->offsets[k + 1] - f->offsets[k], ranks[k]) << "sample " << k;
    }
    const Matrix g = gaussian(rng, d, d);
    for (const Matrix& s :
         {Matrix(g * g.transpose()), Matrix(g + g.transpose())}) {  // PSD, indefinite
      const Matrix fast = theory::factored_spread(*f, abar, s);
      const Matrix slow = theory::per_sample_spread(c, p, abar, s);
      const double bound = cancellation_bound(c, p, abar, s, f->offsets.back());
      EXPECT_LE((fast - slow).norm(), bound);
      EXPECT_LE(bound, 1e-11 * slow.norm());  // the bound itself is small: κ ≈ 1 here
    }
  }
}

TEST(LinearSaFactors, FullRankOrNearlyConstantSamplesAreNotFactored) {
  std::mt19937_64 rng(12);
  const int d = 12;
  // One sample of rank d/4 + 1 (or a dense one) among rank-one samples: not factored.
  for (const int high : {d / 4 + 1, d}) {
    std::vector<int> ranks(10, 1);
    ranks[4] = high;
    const LinearSaClient c = client_of_ranks(rng, d, ranks);
    const Vector p = probabilities(c);
    EXPECT_FALSE(theory::factor_samples(c, p, mean_a(c, p)).has_value()) << "rank " << high;
  }
  // Rank-one samples that differ by 1e-3 from their mean: κ ≈ 1e6 > kMaxAmplification.
  LinearSaClient c;
  const Vector u = gaussian(rng, d, 1), v = gaussian(rng, d, 1);
  for (int k = 0; k < 10; ++k) {
    c.samples.push_back({1.0, (u + 1e-3 * gaussian(rng, d, 1)) * v.transpose(), Vector::Zero(d)});
  }
  const Vector p = probabilities(c);
  EXPECT_FALSE(theory::factor_samples(c, p, mean_a(c, p)).has_value());
}

TEST(LinearSaFactors, ProblemUsesFactorsOnlyForLowRankClients) {
  std::mt19937_64 rng(13);
  const int d = 8;
  const int batch = 2;
  // Client 0: TD(0)-like samples φ(φ − ρφ')ᵀ (rank one, Ā ≈ (1 − ρ·0)I/d: stable); client 1:
  // full-rank samples I + 0.3 G (the per-sample form).
  std::vector<LinearSaClient> clients(2);
  for (int k = 0; k < 60; ++k) {
    const Vector phi = gaussian(rng, d, 1).normalized();
    const Vector next = gaussian(rng, d, 1).normalized();
    clients[0].samples.push_back({1.0 + k % 3, phi * (phi - 0.9 * next).transpose(), phi});
  }
  for (int k = 0; k < 5; ++k) {
    clients[1].samples.push_back(
        {1.0, Matrix(Matrix::Identity(d, d) + 0.3 * gaussian(rng, d, d)), gaussian(rng, d, 1)});
  }
  const LinearSaClient client0 = clients[0];
  const LinearSaClient client1 = clients[1];
  const theory::LinearSaProblem problem(std::move(clients), batch);
  ASSERT_TRUE(problem.factored(0));
  EXPECT_FALSE(problem.factored(1));
  const Matrix g = gaussian(rng, d, d);
  const Matrix s = g * g.transpose();
  const Vector m = gaussian(rng, d, 1);
  // The full-rank client takes the per-sample form, bit for bit.
  const Matrix slow1 = symmetric_part(
      theory::per_sample_spread(client1, problem.probabilities(1), problem.mean_a(1), s));
  EXPECT_EQ(problem.expected_noise_covariance_linear(1, s), slow1 / batch);
  // The rank-one client: within the cancellation bound of the per-sample form, and 𝒩 is the part
  // of expected_noise_covariance linear in s (which keeps the per-sample form).
  const Matrix& abar = problem.mean_a(0);
  const Vector& p = problem.probabilities(0);
  const Matrix slow0 = symmetric_part(theory::per_sample_spread(client0, p, abar, s)) / batch;
  const Matrix fast0 = problem.expected_noise_covariance_linear(0, s);
  const double bound = cancellation_bound(client0, p, abar, s, 60) / batch;
  EXPECT_LE((fast0 - slow0).norm(), bound);
  const Matrix difference = problem.expected_noise_covariance(0, m, s) -
                            problem.expected_noise_covariance(0, m, Matrix::Zero(d, d));
  EXPECT_LE((fast0 - difference).norm(), bound + 1e-14 * difference.norm());
}

}  // namespace
}  // namespace fedverify
