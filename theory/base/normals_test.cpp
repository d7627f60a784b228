// The vectorised Box–Muller normals of theory/base/normals.hpp: the law of the output, the
// accuracy of its log and sin/cos against the C library, and the addressing contract across
// chains (normal i of chain k does not depend on how many chains are drawn together, nor on
// where a block of chains starts: the property that makes a chain independent of K, of the
// thread count and of the block partition).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <vector>

#include "theory/base/normals.hpp"
#include "theory/base/testing/statistical_checks.hpp"

namespace fedverify::estimators {
namespace {

using verify::z_two_sided;

// The decision of BatchNormalsAreStandardNormal on a sample: the z-scores of the mean, the
// variance (Var Z² = 2), the fourth moment (Var Z⁴ = 96) and the tail frequency P(|Z| > 3), and
// √M times the Kolmogorov distance to Φ.
struct NormalityScores {
  double mean, var, m4, tail, ks;
};

NormalityScores normality_scores(std::vector<double> z) {
  double m1 = 0, m2 = 0, m4 = 0, tail = 0;
  constexpr double kTail = 3.0;
  for (const double v : z) {
    m1 += v, m2 += v * v, m4 += v * v * v * v;
    tail += std::abs(v) > kTail ? 1.0 : 0.0;
  }
  const auto m = static_cast<double>(z.size());
  m1 /= m, m2 /= m, m4 /= m, tail /= m;
  const double p_tail = std::erfc(kTail / std::sqrt(2.0));
  std::sort(z.begin(), z.end());
  double d = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    d = std::max({d, std::abs(static_cast<double>(i + 1) / m - cdf),
                  std::abs(static_cast<double>(i) / m - cdf)});
  }
  return {m1 * std::sqrt(m), (m2 - 1.0) / std::sqrt(2.0 / m), (m4 - 3.0) / std::sqrt(96.0 / m),
          (tail - p_tail) / std::sqrt(p_tail * (1 - p_tail) / m), std::sqrt(m) * d};
}

// Statement: normals_into yields i.i.d. N(0, 1) numbers.
// Measurement: M = 2²¹ normals of one stream. Decision (family α = 1e-3, Bonferroni over 5):
// |z| ≤ z_{α/5} (two-sided) for the mean, the variance, the fourth moment and P(|Z| > 3); the
// Kolmogorov distance D ≤ t with P(√M·D > t) ≤ 2e^{−2t²} = α/5 (Dvoretzky–Kiefer–Wolfowitz–
// Massart, exact for all M). Planted: the same decision on 1.01·Z (variance off by 2 %, z(var)
// ≈ 20) and on Z + 0.005 (z(mean) ≈ 7) must reject.
TEST(Engine, BatchNormalsAreStandardNormal) {
  constexpr int kM = 1 << 21;
  constexpr double kAlpha = 1e-3;
  const double bound = z_two_sided(kAlpha / 5);
  const double ks_bound = std::sqrt(std::log(2.0 / (kAlpha / 5)) / 2.0);
  const auto accepted = [&](const NormalityScores& s) {
    return std::abs(s.mean) <= bound && std::abs(s.var) <= bound && std::abs(s.m4) <= bound &&
           std::abs(s.tail) <= bound && s.ks <= ks_bound;
  };
  std::vector<double> z(kM);
  normals_into({2026, Purpose::test, 1, 2, 3}, z.data(), kM);
  const NormalityScores s = normality_scores(z);
  fmt::print(
      "normals: z(mean) {:.2f}, z(var) {:.2f}, z(m4) {:.2f}, z(tail) {:.2f} (|z| <= {:.2f}); "
      "sqrt(M) D = {:.3f} (<= {:.3f})\n",
      s.mean, s.var, s.m4, s.tail, bound, s.ks, ks_bound);
  EXPECT_TRUE(accepted(s));
  std::vector<double> scaled(z), shifted(z);
  for (double& v : scaled) v *= 1.01;
  for (double& v : shifted) v += 0.005;
  EXPECT_FALSE(accepted(normality_scores(scaled)));
  EXPECT_FALSE(accepted(normality_scores(shifted)));
}

// Statement: the transform's ln u and (cos θ, sin θ) are those of the C library to within the
// polynomials' error (fdlibm's kernels: < 1 ulp on their intervals; our branch-free form of the
// log adds at most one more rounding).
// Measurement: 2²⁰ + 1 words spread over the 32-bit range (and the extremes 0 and 2³² − 1).
// Decision (deterministic): |ln u − log(u)| ≤ 2 ulp of |ln u|; |sin θ − s|, |cos θ − c| ≤ 2 ulp
// of 1, with (c, s) = std::cos, std::sin of the same x = (π/2)t, rotated by the same quarter q
// (so that the rounding of the angle, common to both, is not counted).
TEST(Engine, BoxMullerLogAndSinCosAreTheLibrarys) {
  constexpr double kUlp = 0x1.0p-52;
  double worst_log = 0, worst_trig = 0;
  for (std::uint64_t w = 0; w <= 0xFFFFFFFFu; w += 4096 - 1) {
    for (const std::uint64_t word : {w, std::uint64_t{0xFFFFFFFFu} - w}) {
      const double u = detail::open_uniform32(word);
      const double log_u = detail::log_unit(u);
      worst_log = std::max(worst_log, std::abs(log_u - std::log(u)) / std::abs(std::log(u)));
      double c = 0, s = 0;
      detail::cos_sin_turn(word, c, s);
      const double t = (static_cast<double>(word & 0x3FFFFFFFu) + 0.5) * 0x1.0p-30 - 0.5;
      const double x = t * (std::numbers::pi / 2);
      double expect_c = std::cos(x), expect_s = std::sin(x);
      for (std::uint64_t q = (word >> 30) & 3u; q > 0; --q) {  // a quarter turn: (c, s) → (−s, c)
        const double turned = -expect_s;
        expect_s = expect_c;
        expect_c = turned;
      }
      worst_trig = std::max({worst_trig, std::abs(c - expect_c), std::abs(s - expect_s)});
    }
  }
  fmt::print("log: {:.2f} ulp, sin/cos: {:.2f} ulp of 1\n", worst_log / kUlp, worst_trig / kUlp);
  EXPECT_LE(worst_log, 2 * kUlp);
  EXPECT_LE(worst_trig, 2 * kUlp);
}

// Statement: the vector passes of box_muller (box_muller_lanes.hpp: 8 lanes on AVX-512, 4 on
// AVX2 + FMA) give the bits of the scalar helpers, ρ = √(−2 ln u), (ρ cos θ, ρ sin θ), lane by
// lane — the property that makes the stream the same on every instruction set.
// Measurement: 2²⁰ + 1 radius words spread over the 32-bit range with their mirror images, each
// paired with an angle word (a different one per pass, so every quarter q and both rotations are
// met), plus the words at the edges: 0, 2³² − 1, the quarter boundaries and the words whose u has
// the mantissa of √2 (the branch point of the log's reduction). Upper 32 bits set to garbage, as
// Philox leaves them. Decision: exact equality (memcmp of the doubles). On a target without
// either vector ISA both sides are the scalar code and the test is trivially true.
TEST(Engine, BoxMullerVectorLanesAreTheScalarHelpersBits) {
  constexpr int kCount = 64;  // a pass as the quadratic kernel's two-client form draws it
  std::vector<std::uint64_t> words;
  for (std::uint64_t w = 0; w <= 0xFFFFFFFFu; w += 4096 - 1) {
    words.push_back(w);
    words.push_back(0xFFFFFFFFu - w);
  }
  for (const std::uint64_t q :
       {0x3FFFFFFFu, 0x40000000u, 0x7FFFFFFFu, 0x80000000u, 0xBFFFFFFFu, 0xC0000000u}) {
    words.push_back(q);
  }
  // Words w whose u = (w + ½)·2⁻³² has a mantissa next to √2's (u ≈ √2·2⁻ᵏ, k = 1 … 32).
  for (int k = 1; k <= 32; ++k) {
    const double w = std::ldexp(std::numbers::sqrt2, 32 - k) - 0.5;
    for (const double delta : {-1.0, 0.0, 1.0}) {
      const double word = std::floor(w) + delta;
      if (word >= 0 && word <= 0xFFFFFFFFp0) words.push_back(static_cast<std::uint64_t>(word));
    }
  }
  while (words.size() % kCount != 0) words.push_back(words.size());
  int mismatches = 0;
  for (std::size_t at = 0; at < words.size(); at += kCount) {
    alignas(64) std::uint64_t u[kCount], v[kCount];
    alignas(64) double first[kCount], second[kCount];
    for (int i = 0; i < kCount; ++i) {
      const std::uint64_t garbage = std::uint64_t{0x9E3779B9u + static_cast<unsigned>(i)} << 32;
      u[i] = words[at + i] | garbage;
      v[i] = (words[(at + i * 7919) % words.size()] ^ (at * 0x61C88647u)) | garbage;
    }
    detail::box_muller<kCount>(u, v, first, second);
    for (int i = 0; i < kCount; ++i) {
      const double rho = std::sqrt(-2.0 * detail::log_unit(detail::open_uniform32(u[i])));
      double c = 0, s = 0;
      detail::cos_sin_turn(v[i], c, s);
      const double expect_first = rho * c, expect_second = rho * s;
      mismatches += std::memcmp(&expect_first, first + i, sizeof(double)) != 0;
      mismatches += std::memcmp(&expect_second, second + i, sizeof(double)) != 0;
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << 2 * words.size() << " normals";
}

// Statement: normals_across_chains<8> (one vectorised pass for 8 chains) is the lane-interleaved
// output of normals_into on each chain's own stream, for every count and first chain (so a chain's
// normals do not depend on K, on the block partition or on the thread count). Blocks of 8 chains
// starting anywhere (0, 3, 1000) must agree where they overlap.
// Decision: exact equality.
TEST(Engine, NormalsAcrossChainsAreThePerChainStreams) {
  constexpr int kL = 8;
  for (const int n : {1, 3, 4, 5, 16, 17, 100, 129}) {
    for (const std::uint32_t first : {0u, 3u, 1000u}) {
      const BatchAddress a{77, Purpose::gradient_noise, first, 6, 31};
      std::vector<double> lanes(static_cast<std::size_t>(n) * kL), one(n);
      normals_across_chains<kL>(a, lanes.data(), n);
      for (int l = 0; l < kL; ++l) {
        BatchAddress chain = a;
        chain.chain = first + static_cast<std::uint32_t>(l);
        normals_into(chain, one.data(), n);
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(lanes[static_cast<std::size_t>(i) * kL + l], one[i])
              << "n " << n << ", first " << first << ", lane " << l << ", normal " << i;
        }
      }
    }
  }
}

// Statement: normals_across_chains_two_clients<8> (the short last passes of two clients drawn
// together) writes client c's and client c + 1's normals_across_chains<8>, whatever the count
// (no short pass, 1, 2, 3 or 4 counter blocks in it).
// Decision: exact equality.
TEST(Engine, NormalsOfTwoClientsAreEachClientsStream) {
  constexpr int kL = 8;
  for (const int n : {1, 3, 4, 5, 9, 12, 13, 16, 17, 30, 100, 129}) {
    const BatchAddress a{77, Purpose::gradient_noise, 1000, 6, 31};
    const auto size = static_cast<std::size_t>(n) * kL;
    std::vector<double> both(2 * size), one(size);
    normals_across_chains_two_clients<kL>(a, both.data(), both.data() + size, n);
    for (int c = 0; c < 2; ++c) {
      BatchAddress client = a;
      client.client += static_cast<std::uint32_t>(c);
      normals_across_chains<kL>(client, one.data(), n);
      for (std::size_t i = 0; i < size; ++i) {
        ASSERT_EQ(both[c * size + i], one[i]) << "n " << n << ", client " << c << ", entry " << i;
      }
    }
  }
}

}  // namespace
}  // namespace fedverify::estimators
