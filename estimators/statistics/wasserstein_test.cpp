// The Wasserstein distances of estimators/statistics/wasserstein.hpp against Gaussians (Bures
// closed forms), brute force over permutations and hand-sorted examples.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "estimators/statistics/wasserstein.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {
namespace {

// d×n sample of N(m, S) from Stream(seed, test, chain = index).
Matrix gaussian_sample(const Vector& m, const Matrix& s, int n, std::uint64_t seed) {
  const Matrix l = s.llt().matrixL();
  Matrix x(m.size(), n);
  for (int j = 0; j < n; ++j) {
    Stream stream(seed, Purpose::test, static_cast<std::uint64_t>(j));
    Vector z(m.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = stream.normal();
    x.col(j) = m + l * z;
  }
  return x;
}

// Closed forms the Bures formula must reproduce exactly (up to round-off, 10⁻¹² relative):
// in d = 1, W2² = (m1 − m2)² + (s1 − s2)²; for commuting (diagonal) covariances the same
// coordinate-wise; W2(μ, μ) = 0 even for a singular covariance (PSD-safe roots: the result is
// the square root of a round-off-sized number, so ≤ √(ε·tr S)·few ≈ 10⁻⁷).
TEST(Wasserstein, BuresClosedForms) {
  EXPECT_NEAR(bures_wasserstein(Vector{{1.0}}, Matrix{{4.0}}, Vector{{-2.0}}, Matrix{{9.0}}),
              std::sqrt(9.0 + 1.0), 1e-12);
  const Vector m1{{0.0, 1.0}}, m2{{1.0, 1.0}};
  const Matrix s1 = Vector{{1.0, 4.0}}.asDiagonal(), s2 = Vector{{4.0, 1.0}}.asDiagonal();
  EXPECT_NEAR(bures_wasserstein(m1, s1, m2, s2), std::sqrt(1.0 + 1.0 + 1.0), 1e-12);
  const Matrix singular{{1.0, 1.0}, {1.0, 1.0}};
  EXPECT_LE(bures_wasserstein(m1, singular, m1, singular), 1e-7);
  EXPECT_THROW(bures_wasserstein(m1, s1, Vector{{1.0}}, s2), InputError);
  EXPECT_THROW(bures_wasserstein(m1, Matrix{{1.0, 2.0}, {0.0, 1.0}}, m2, s2), InputError);
}

// Exact empirical W2 = brute force over all n! assignments, n = 1..7 (d = 3). The network
// simplex works with costs rounded to integers at scale 2⁵⁸/(n·max cost) (see header), so the
// assignment is optimal to ≤ n·max cost·2⁻⁵⁸ in the sum; 10⁻¹² relative covers that and the
// double round-off of sums of 7 terms.
TEST(Wasserstein, EmpiricalEqualsBruteForceOverPermutations) {
  const Matrix s{{1.0, 0.3, 0.0}, {0.3, 2.0, 0.1}, {0.0, 0.1, 0.5}};
  for (int n = 1; n <= 7; ++n) {
    const Matrix x = gaussian_sample(Vector::Zero(3), s, n, 100 + n);
    const Matrix y = gaussian_sample(Vector{{0.5, 0.0, -0.5}}, s, n, 200 + n);
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    double best = std::numeric_limits<double>::infinity();
    do {
      double total = 0;
      for (int i = 0; i < n; ++i) total += (x.col(i) - y.col(perm[i])).squaredNorm();
      best = std::min(best, total);
    } while (std::next_permutation(perm.begin(), perm.end()));
    const double brute = std::sqrt(best / n);
    const double exact = empirical_w2(x, y);
    EXPECT_NEAR(exact, brute, 1e-12 * brute) << "n = " << n;
    std::vector<int> sigma = optimal_assignment(x, y);
    std::sort(sigma.begin(), sigma.end());
    for (int i = 0; i < n; ++i) EXPECT_EQ(sigma[i], i);  // a permutation
  }
}

// One dimension: sorting by hand. x = {3, 1, 2}, y = {0, 5, 1}: sorted pairs (1,0), (2,1),
// (3,5), W2² = (1 + 1 + 4)/3 = 2. The assignment solver agrees on a 1-D sample.
TEST(Wasserstein, OneDimensionalBySorting) {
  EXPECT_NEAR(w2_1d({3, 1, 2}, {0, 5, 1}), std::sqrt(2.0), 1e-15);
  const Matrix x = gaussian_sample(Vector{{0.0}}, Matrix{{1.0}}, 200, 5);
  const Matrix y = gaussian_sample(Vector{{1.0}}, Matrix{{2.0}}, 200, 6);
  const double sorted = w2_1d(std::vector<double>(x.data(), x.data() + 200),
                              std::vector<double>(y.data(), y.data() + 200));
  EXPECT_NEAR(empirical_w2(x, y), sorted, 1e-12 * sorted);
  EXPECT_THROW(w2_1d({1, 2}, {1}), InputError);
}

// Sliced W2: every projection is 1-Lipschitz, so SW2 ≤ W2 for any draw of directions (up to
// round-off, 10⁻¹² relative); in d = 1 the only directions are ±1 and SW2 = the 1-D W2.
TEST(Wasserstein, SlicedIsBelowExactAndOneDimensionalInDimensionOne) {
  const Matrix s{{1.0, 0.8, 0.0}, {0.8, 1.0, 0.0}, {0.0, 0.0, 3.0}};
  const Matrix x = gaussian_sample(Vector::Zero(3), s, 150, 21);
  const Matrix y = gaussian_sample(Vector{{1.0, -1.0, 0.0}}, s.transpose() * 0.5, 150, 22);
  const double exact = empirical_w2(x, y);
  const double sliced = sliced_w2(x, y, 200, 9);
  fmt::print("d = 3, n = 150: sliced W2 {:.4f} <= exact W2 {:.4f}\n", sliced, exact);
  EXPECT_LE(sliced, exact * (1 + 1e-12));
  EXPECT_EQ(sliced, sliced_w2(x, y, 200, 9));  // same seed ⇒ same directions

  const Matrix x1 = gaussian_sample(Vector{{0.0}}, Matrix{{1.0}}, 100, 31);
  const Matrix y1 = gaussian_sample(Vector{{2.0}}, Matrix{{0.5}}, 100, 32);
  const double one_d = w2_1d(std::vector<double>(x1.data(), x1.data() + 100),
                             std::vector<double>(y1.data(), y1.data() + 100));
  EXPECT_NEAR(sliced_w2(x1, y1, 5, 1), one_d, 1e-12 * one_d);
}

// Empirical vs Bures. Setting: d = 2, N(m1, S1) vs N(m2, S2), n = 800 samples each.
// Reasoning (rigorous parts marked): |W2(μ_n, ν_n) − W2(μ, ν)| ≤ W2(μ_n, μ) + W2(ν_n, ν)
// (triangle inequality); W2²(μ_n, μ) ≤ E_{μ'_n} W2²(μ_n, μ'_n) for an independent sample μ'_n
// (joint convexity of W2², E μ'_n = μ). Assumption: the realised W2(μ_n, μ'_n) is within a
// factor 1.5 of its root mean square (concentration; at n = 800 the spread over seeds is a few
// %). Tolerance: 1.5 (W2(μ_n, μ'_n) + W2(ν_n, ν'_n)) — it shrinks like the empirical rate
// (≈ √(log n / n) for Gaussians in d = 2).
TEST(Wasserstein, EmpiricalApproachesBuresForLargeGaussianSamples) {
  const int n = 800;
  const Vector m1{{0.0, 0.0}}, m2{{1.0, 0.5}};
  const Matrix s1{{1.0, 0.6}, {0.6, 1.0}}, s2{{2.0, -0.3}, {-0.3, 0.5}};
  const Matrix x = gaussian_sample(m1, s1, n, 41), x2 = gaussian_sample(m1, s1, n, 42);
  const Matrix y = gaussian_sample(m2, s2, n, 43), y2 = gaussian_sample(m2, s2, n, 44);
  const double bures = bures_wasserstein(m1, s1, m2, s2);
  const double empirical = empirical_w2(x, y);
  const double tolerance = 1.5 * (empirical_w2(x, x2) + empirical_w2(y, y2));
  fmt::print("Bures W2 {:.4f}, empirical W2 (n = {}) {:.4f}, |diff| {:.4f}, tolerance {:.4f}\n",
             bures, n, empirical, std::abs(empirical - bures), tolerance);
  EXPECT_LE(std::abs(empirical - bures), tolerance);
}

// Two samples of the same law: W2(μ_n, μ'_n) → 0. Known rate (Fournier & Guillin 2015,
// d = 2 < 4): E W2² ≲ n^{-1/2}, i.e. W2 ≲ n^{-1/4} (Gaussians do better, ≈ √(log n/n)).
// Decision: the log–log slope of the seed-averaged W2 over n ∈ {50, 200, 800} is ≤ −1/4.
TEST(Wasserstein, EmpiricalDistanceBetweenSamplesOfOneLawShrinks) {
  const Matrix s{{1.0, 0.5}, {0.5, 2.0}};
  std::vector<double> ns{50, 200, 800}, w;
  for (double n : ns) {
    double sum = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const std::uint64_t seed = 1000 + 10 * static_cast<std::uint64_t>(n) + 2 * rep;
      sum += empirical_w2(gaussian_sample(Vector::Zero(2), s, static_cast<int>(n), seed),
                          gaussian_sample(Vector::Zero(2), s, static_cast<int>(n), seed + 1));
    }
    w.push_back(sum / 3);
  }
  const double slope = std::log(w[2] / w[0]) / std::log(ns[2] / ns[0]);
  fmt::print(
      "W2 between samples of one law: n=50 {:.4f}, n=200 {:.4f}, n=800 {:.4f}; slope {:.3f}\n",
      w[0], w[1], w[2], slope);
  EXPECT_GT(w[0], w[1]);
  EXPECT_GT(w[1], w[2]);
  EXPECT_LE(slope, -0.25);
}

}  // namespace
}  // namespace fedverify::estimators
