// Standard normals of the batch streams (theory/base/rng.hpp), generated in vector blocks.
//
// Numerical strategy: Box–Muller on 32-bit uniforms, branch-free, so that one loop over a block
// of counters vectorises (no table gathers, no rejection):
//
//   counter block j of a stream gives four 32-bit words (w0, w1, w2, w3); pair m ∈ {0, 1} of the
//   block takes u = (w_{2m} + ½)·2⁻³² ∈ (0, 1) and the angle θ ∈ [−π/4, 7π/4) of w_{2m+1}
//   (cos_sin_turn below) and yields
//     normal 4j + 2m     = ρ cos θ,
//     normal 4j + 2m + 1 = ρ sin θ,     ρ = √(−2 ln u).
//
// So normal i of a stream is a pure function of (stream, i): it does not depend on how many are
// drawn at once, nor on how many chains are drawn together (normals_across_chains).
//
// ln u: u = 2^k·m with m ∈ [√½, √2) read off the bits, ln m = f − s(f − R(s²)), f = m − 1,
// s = f/(2 + f), R the degree-14 odd-part polynomial of fdlibm's e_log.c (Lg1…Lg7; |error| <
// 2⁻⁵⁸·|ln m| for the polynomial, about 1 ulp overall). sin, cos: θ = (π/2)(q + t) with the
// quarter q and t ∈ (−½, ½) read off the word's bits; sin and cos of x = (π/2)t on (−π/4, π/4)
// by fdlibm's __kernel_sin / __kernel_cos polynomials (S1…S6, C1…C6; ≤ 1 ulp on that interval),
// rotated by q (a swap and sign bits). Every product-sum that could be contracted is an explicit
// std::fma, and the square root is the correctly rounded one, so the vectorised and the scalar
// code give the same bits whatever the compiler's contraction setting.
//
// The per-element helpers and box_muller are always inlined: the loops vectorise only when
// log_unit and cos_sin_turn are inlined into them, and GCC's inliner dropped them (scalar calls,
// 1.7× slower) in an experiment that grew the quadratic kernel's translation unit (bench/README.md,
// run 13).
//
// Law: exact Box–Muller up to the 32-bit grids of u and v. The largest |normal| is
// √(2·33·ln 2) = 6.76 (u ≥ 2⁻³³); P(|Z| > 6.76) = 1.4e-11 is the only mass the grid removes,
// a relative change of < 1e-8 in every moment up to the fourth.
//
// Why Box–Muller (bench/engine_bench.cpp, component_normals_*; bench/README.md, run 11): the
// 256-layer ziggurat it replaces needs two table lookups per normal, which vectorise only as
// gathers (microcoded on the Zen 5 VM we measure on, ≈ 35 cycles per 8 doubles), and 64 bits per
// candidate. Measured (CPU time, 100 normals of 8 chains per call): 0.78 ns per normal here
// (Philox words 0.22 ns of it) against 2.83 ns for the ziggurat drawn chain by chain.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "theory/base/box_muller_lanes.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {

namespace detail {

// (w + ½)·2⁻³² for the low 32 bits of w: the open-interval uniform of a 32-bit word (exact).
[[gnu::always_inline]] inline double open_uniform32(std::uint64_t w) {
  return (static_cast<double>(w & 0xFFFFFFFFu) + 0.5) * 0x1.0p-32;
}

// ln u for 0 < u < 1 (normal, not subnormal: u ≥ 2⁻³³ here). fdlibm's e_log.c, branch-free.
[[gnu::always_inline]] inline double log_unit(double u) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  constexpr std::uint64_t kMantissa = (std::uint64_t{1} << 52) - 1;
  constexpr std::uint64_t kSqrt2Mantissa = 0x6A09E667F3BCDu;  // mantissa bits of √2
  const auto bits = std::bit_cast<std::uint64_t>(u);
  const std::uint64_t mantissa = bits & kMantissa;
  const std::uint64_t high = mantissa >= kSqrt2Mantissa ? 1 : 0;  // m ≥ √2: halve m, k + 1
  const double m = std::bit_cast<double>(mantissa | ((std::uint64_t{1023} - high) << 52));
  const double k = static_cast<double>(static_cast<std::int64_t>(bits >> 52) - 1023 +
                                       static_cast<std::int64_t>(high));
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t2 = z * std::fma(w, std::fma(w, std::fma(w, kLg7, kLg5), kLg3), kLg1);
  const double r = std::fma(w, std::fma(w, std::fma(w, kLg6, kLg4), kLg2), t2);  // t2 + t1
  return std::fma(k, kLn2Hi, -(std::fma(s, f - r, -k * kLn2Lo) - f));
}

// (cos θ, sin θ) for the angle θ = (π/2)(q + t) of the low 32 bits of w: q = bits 30–31 (the
// quarter turn), t = (bits 0–29 + ½)·2⁻³⁰ − ½ ∈ (−½, ½). θ is uniform on the circle's 2³² points
// (quarter q covers [qπ/2 − π/4, qπ/2 + π/4)), so no rounding of the angle is needed.
[[gnu::always_inline]] inline void cos_sin_turn(std::uint64_t w, double& c, double& s) {
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  constexpr double kHalfPi = 1.57079632679489661923;
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  const double t = (static_cast<double>(w & 0x3FFFFFFFu) + 0.5) * 0x1.0p-30 - 0.5;  // exact
  const double x = t * kHalfPi;                                                     // |x| < π/4
  const double z = x * x;
  const double sin_r = std::fma(z, std::fma(z, std::fma(z, std::fma(z, kS6, kS5), kS4), kS3), kS2);
  const double sin_x = std::fma(z * x, std::fma(z, sin_r, kS1), x);
  const double cos_r =
      z *
      std::fma(z, std::fma(z, std::fma(z, std::fma(z, std::fma(z, kC6, kC5), kC4), kC3), kC2), kC1);
  const double cos_x = 1.0 - std::fma(0.5, z, -z * cos_r);
  // Rotate by q quarter turns: sin θ = ±(q odd ? cos x : sin x), sign − for q = 2, 3 (bit 31);
  // cos θ = ±(q odd ? sin x : cos x), sign − for q = 1, 2 (bit 31 of w + 2³⁰).
  const bool odd = (w & 0x40000000u) != 0;
  const std::uint64_t sin_sign = (w << 32) & kSign;
  const std::uint64_t cos_sign = ((w + 0x40000000u) << 32) & kSign;
  s = std::bit_cast<double>(std::bit_cast<std::uint64_t>(odd ? cos_x : sin_x) ^ sin_sign);
  c = std::bit_cast<double>(std::bit_cast<std::uint64_t>(odd ? sin_x : cos_x) ^ cos_sign);
}

// kCount Box–Muller pairs: (first[i], second[i]) from the radius word u[i] and angle word v[i].
// Vector passes of box_muller_lanes (box_muller_lanes.hpp: 8 lanes on AVX-512, 4 on AVX2 + FMA,
// whatever the compiler's tuning), the remainder and other targets by the scalar helpers above,
// with the same bits. std::sqrt is correctly rounded, as vsqrtpd.
template <int kCount>
[[gnu::always_inline]] inline void box_muller(const std::uint64_t* u, const std::uint64_t* v,
                                              double* first, double* second) {
  int i = 0;
#if defined(FEDVERIFY_BOX_MULLER_LANES)
  for (; i + Lanes::kWidth <= kCount; i += Lanes::kWidth) {
    box_muller_lanes<Lanes>(u + i, v + i, first + i, second + i);
  }
#endif
  for (; i < kCount; ++i) {
    const double rho = std::sqrt(-2.0 * log_unit(open_uniform32(u[i])));
    double c = 0, s = 0;
    cos_sin_turn(v[i], c, s);
    first[i] = rho * c;
    second[i] = rho * s;
  }
}

// Counter blocks first … first + kBlocks − 1 of kChains consecutive chains, turned into normals
// 4·first … 4·(first + kBlocks) − 1 of each chain, lane-interleaved; the first `take` written.
template <int kChains, int kBlocks>
inline void normal_blocks_across_chains(const BatchAddress& a, std::uint32_t first, double* out,
                                        int take) {
  constexpr int kCount = kChains * kBlocks;
  alignas(64) std::uint64_t w[4][kCount];
  philox_across_chains<kChains, kBlocks>(a, first, w);
  alignas(64) double z[4][kCount];  // z[q][b·kChains + lane]: normal 4(first + b) + q
  box_muller<kCount>(w[0], w[1], z[0], z[1]);
  box_muller<kCount>(w[2], w[3], z[2], z[3]);
  const auto copy_normal = [&](int i) {
    const double* from = z[i % 4] + (i / 4) * kChains;
    std::copy(from, from + kChains, out + static_cast<std::ptrdiff_t>(i) * kChains);
  };
  if (take == 4 * kBlocks) {  // every pass but a call's last: a copy unrolled at compile time
#pragma GCC unroll 128
    for (int i = 0; i < 4 * kBlocks; ++i) copy_normal(i);
  } else {
    for (int i = 0; i < take; ++i) copy_normal(i);
  }
}

// normal_blocks_across_chains for the same counter blocks of two clients (a.client and
// a.client + 1; out and out_next) in one vectorised pass: the last, short pass of a round's
// normals has too few counters to fill the vector pipes alone (bench/README.md, run 13).
template <int kChains, int kBlocks>
inline void normal_blocks_two_clients(const BatchAddress& a, std::uint32_t first, double* out,
                                      double* out_next, int take) {
  constexpr int kCount = kChains * kBlocks;  // counters per client
  alignas(64) std::uint64_t w[4][2 * kCount];
  BatchAddress b = a;
  b.client += 1;
  const std::uint32_t c3[2] = {philox_client_word(a), philox_client_word(b)};
  for (int i = 0; i < 2 * kCount; ++i) {  // client i / kCount, then as philox_across_chains
    const int j = i % kCount;
    w[0][i] = first + static_cast<std::uint32_t>(j / kChains);
    w[1][i] = a.round;
    w[2][i] = a.chain + static_cast<std::uint32_t>(j % kChains);
    w[3][i] = c3[i / kCount];
  }
  philox4x32_rounds<2 * kCount>(w[0], w[1], w[2], w[3], a.seed);
  alignas(64) double z[4][2 * kCount];
  box_muller<2 * kCount>(w[0], w[1], z[0], z[1]);
  box_muller<2 * kCount>(w[2], w[3], z[2], z[3]);
  for (int c = 0; c < 2; ++c) {
    double* to = c == 0 ? out : out_next;
    for (int i = 0; i < take; ++i) {
      const double* from = z[i % 4] + c * kCount + (i / 4) * kChains;
      std::copy(from, from + kChains, to + static_cast<std::ptrdiff_t>(i) * kChains);
    }
  }
}

}  // namespace detail

// Counter blocks per vectorised pass of 8 or more chains (4 normals each): the passes of
// normals_across_chains and of normals_across_chains_two_clients.
inline constexpr int kPassBlocks = 4;

// Normals 0 … n − 1 of kChains consecutive chains (a.chain, a.chain + 1, …), lane-interleaved:
// out[i·kChains + lane] is normal i of the stream a with chain a.chain + lane. Each Philox pass
// covers kChains chains × up to kMaxBlocks counter blocks (only as many as needed), vectorised
// across both.
template <int kChains, int kMaxBlocks = (kChains >= 8 ? kPassBlocks : 32 / kChains)>
inline void normals_across_chains(const BatchAddress& a, double* out, int n) {
  static_assert(kMaxBlocks >= 1 && kMaxBlocks <= 32);
  for (std::uint32_t first = 0; n > 0; first += kMaxBlocks) {
    const int take = std::min(n, 4 * kMaxBlocks);
    const int blocks = (take + 3) / 4;
    // The last pass computes as few counter blocks as will do (kMaxBlocks/8, /4, /2, rounded up).
    if (blocks <= (kMaxBlocks + 7) / 8) {
      detail::normal_blocks_across_chains<kChains, (kMaxBlocks + 7) / 8>(a, first, out, take);
    } else if (blocks <= (kMaxBlocks + 3) / 4) {
      detail::normal_blocks_across_chains<kChains, (kMaxBlocks + 3) / 4>(a, first, out, take);
    } else if (blocks <= (kMaxBlocks + 1) / 2) {
      detail::normal_blocks_across_chains<kChains, (kMaxBlocks + 1) / 2>(a, first, out, take);
    } else {
      detail::normal_blocks_across_chains<kChains, kMaxBlocks>(a, first, out, take);
    }
    out += static_cast<std::ptrdiff_t>(take) * kChains;
    n -= take;
  }
}

// normals_across_chains for two clients, a.client (into out) and a.client + 1 (into out_next),
// with the last passes of the two, when short, drawn together (normal_blocks_two_clients).
template <int kChains>
inline void normals_across_chains_two_clients(const BatchAddress& a, double* out, double* out_next,
                                              int n) {
  constexpr int kMaxBlocks = kPassBlocks;  // normals_across_chains' passes for kChains ≥ 8
  static_assert(kChains >= 8);
  const int full = n / (4 * kMaxBlocks) * (4 * kMaxBlocks);  // normals of the full passes
  BatchAddress b = a;
  b.client += 1;
  normals_across_chains<kChains, kMaxBlocks>(a, out, full);
  normals_across_chains<kChains, kMaxBlocks>(b, out_next, full);
  const int take = n - full;
  const auto first = static_cast<std::uint32_t>(full / 4);
  const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(full) * kChains;
  switch ((take + 3) / 4) {
    case 0:
      break;
    case 1:
      detail::normal_blocks_two_clients<kChains, 1>(a, first, out + at, out_next + at, take);
      break;
    case 2:
      detail::normal_blocks_two_clients<kChains, 2>(a, first, out + at, out_next + at, take);
      break;
    case 3:
      detail::normal_blocks_two_clients<kChains, 3>(a, first, out + at, out_next + at, take);
      break;
    default:
      detail::normal_blocks_two_clients<kChains, 4>(a, first, out + at, out_next + at, take);
      break;
  }
}

// n independent standard normals of the stream `a` (normal i as in the header above).
inline void normals_into(const BatchAddress& a, double* out, int n) {
  normals_across_chains<1>(a, out, n);
}

}  // namespace fedverify::estimators
