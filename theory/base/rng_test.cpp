// The batch streams of theory/base/rng.hpp: the addressing contract (normal i and index i do not
// depend on how many are drawn at once, nor on how many chains are drawn together) and the
// ziggurat normals' law.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "theory/base/rng.hpp"
#include "theory/base/testing/statistical_checks.hpp"

namespace fedverify::estimators {
namespace {

using verify::z_two_sided;

// Statement: normal i and index i of a batch stream do not depend on how many are drawn at once
// (the addressing contract that makes chain k independent of K and of the thread count).
// Decision: exact equality of the prefixes.
TEST(Engine, BatchStreamsDoNotDependOnTheBatchSize) {
  const BatchAddress a{99, Purpose::gradient_noise, 5, 3, 17};
  std::vector<double> many(1000), few(37);
  normals_into(a, many.data(), 1000);
  normals_into(a, few.data(), 37);
  EXPECT_TRUE(std::equal(few.begin(), few.end(), many.begin()));
  std::vector<std::uint32_t> more(100), less(10);
  indices_into(a, 50, more.data(), 100);
  indices_into(a, 50, less.data(), 10);
  EXPECT_TRUE(std::equal(less.begin(), less.end(), more.begin()));
}

// Statement: normals_into (ziggurat, 256 layers) yields i.i.d. N(0, 1) numbers, including the
// tail beyond r = 3.654 and the wedges (the slow path, ≈ 1.5 % of the candidates).
// Measurement: M = 2²¹ normals of one stream. Decision (family α = 1e-3, Bonferroni over 4):
// |z| ≤ z_{α/4} for the mean, the variance (Var Z² = 2), the fourth moment (Var Z⁴ = 96) and
// the tail frequency P(|Z| > r) = erfc(r/√2); and the Kolmogorov distance D ≤ t with
// P(√M·D > t) ≤ 2e^{−2t²} = α/4 (Dvoretzky–Kiefer–Wolfowitz–Massart, exact for all M).
TEST(Engine, BatchNormalsAreStandardNormal) {
  constexpr int kM = 1 << 21;
  constexpr double kAlpha = 1e-3;
  std::vector<double> z(kM);
  normals_into({2026, Purpose::test, 1, 2, 3}, z.data(), kM);
  double m1 = 0, m2 = 0, m4 = 0, tail = 0;
  const double r = 3.6541528853610088;
  for (const double v : z) {
    m1 += v, m2 += v * v, m4 += v * v * v * v;
    tail += std::abs(v) > r ? 1.0 : 0.0;
  }
  const double m = kM;
  m1 /= m, m2 /= m, m4 /= m, tail /= m;
  const double p_tail = std::erfc(r / std::sqrt(2.0));
  const double z_mean = m1 * std::sqrt(m);
  const double z_var = (m2 - 1.0) / std::sqrt(2.0 / m);
  const double z_m4 = (m4 - 3.0) / std::sqrt(96.0 / m);
  const double z_tail = (tail - p_tail) / std::sqrt(p_tail * (1 - p_tail) / m);
  std::sort(z.begin(), z.end());
  double d = 0;
  for (int i = 0; i < kM; ++i) {
    const double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    d = std::max({d, std::abs((i + 1) / m - cdf), std::abs(i / m - cdf)});
  }
  const double bound = z_two_sided(kAlpha / 4);
  const double ks_bound = std::sqrt(std::log(2.0 / (kAlpha / 4)) / 2.0);
  fmt::print(
      "normals: z(mean) {:.2f}, z(var) {:.2f}, z(m4) {:.2f}, z(tail) {:.2f} (|z| <= {:.2f}); "
      "sqrt(M) D = {:.3f} (<= {:.3f})\n",
      z_mean, z_var, z_m4, z_tail, bound, std::sqrt(m) * d, ks_bound);
  EXPECT_LE(std::abs(z_mean), bound);
  EXPECT_LE(std::abs(z_var), bound);
  EXPECT_LE(std::abs(z_m4), bound);
  EXPECT_LE(std::abs(z_tail), bound);
  EXPECT_LE(std::sqrt(m) * d, ks_bound);
}

// Statement: indices_across_chains<8> (one vectorised Philox pass for 8 chains) is the
// lane-interleaved output of indices_into on each chain's own stream, whatever the count.
// Decision: exact equality.
TEST(Engine, IndicesAcrossChainsAreThePerChainStreams) {
  constexpr int kL = 8;
  for (const int n : {1, 4, 10, 16, 17, 45}) {
    const BatchAddress a{77, Purpose::gradient_noise, 1000, 6, 31};
    std::vector<std::uint32_t> lanes(static_cast<std::size_t>(n) * kL), one(n);
    indices_across_chains<kL>(a, 50, lanes.data(), n);
    for (int l = 0; l < kL; ++l) {
      BatchAddress chain = a;
      chain.chain = a.chain + static_cast<std::uint32_t>(l);
      indices_into(chain, 50, one.data(), n);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(lanes[static_cast<std::size_t>(i) * kL + l], one[i]) << n << " " << l << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace fedverify::estimators
