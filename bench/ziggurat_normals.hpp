// The previous normal generator of the batch streams (a 256-layer ziggurat, Marsaglia & Tsang
// 2000), kept only as the baseline of engine_bench's component_normals_* micro-benchmarks: the
// measurement behind theory/base/normals.hpp's choice of a vectorised Box–Muller transform.
// Verbatim from theory/base/rng.hpp before that change (namespace renamed); not used elsewhere.
#pragma once

#include <Random123/philox.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "theory/base/rng.hpp"

namespace fedverify::bench {

using estimators::BatchAddress;

// Ziggurat of the half-normal density f(x) = e^{−x²/2} in 256 layers of equal area v
// (Marsaglia & Tsang 2000, "The ziggurat method for generating random variables", J. Stat.
// Softw. 5(8); their constants r, v for 256 layers). Layer j ≥ 1 is the rectangle
// [0, x_j] × [f(x_j), f(x_{j+1})]; layer 0 is [0, r] × [0, f(r)] plus the tail x > r, pictured as a
// rectangle of width x_0 = v / f(r). A candidate (j, u) gives x = u·x_j and is accepted at once
// when x < x_{j+1} (the part of the layer under the curve for sure).
struct Ziggurat {
  static constexpr int kLayers = 256;
  static constexpr double r = 3.6541528853610088;
  static constexpr double v = 4.92867323399e-3;
  std::array<double, kLayers + 1> x{};  // x_0 > x_1 = r > … > x_255 > x_256 = 0
  std::array<double, kLayers + 1> f{};  // f(x_j)

  Ziggurat() {
    x[0] = v / std::exp(-0.5 * r * r);
    x[1] = r;
    for (int j = 1; j < kLayers - 1; ++j) {
      x[j + 1] = std::sqrt(-2.0 * std::log(v / x[j] + std::exp(-0.5 * x[j] * x[j])));
    }
    x[kLayers] = 0.0;
    for (int j = 0; j <= kLayers; ++j) f[j] = std::exp(-0.5 * x[j] * x[j]);
  }
};

inline const Ziggurat& ziggurat() {
  static const Ziggurat table;
  return table;
}

// Candidate word w: bits 0–7 the layer, bit 8 the sign, bits 11–63 the uniform u ∈ [0, 1).
inline int ziggurat_layer(std::uint64_t w) { return static_cast<int>(w & 0xFFu); }
inline double ziggurat_uniform(std::uint64_t w) { return static_cast<double>(w >> 11) * 0x1.0p-53; }

// The rare candidates that miss the inner rectangle: the wedge test, the tail (Marsaglia 1964:
// x = r + e₁/r accepted when 2e₂ > (e₁/r)², e₁, e₂ ~ Exp(1)), and on rejection fresh candidates.
// The extra numbers come from the Philox4x64 stream keyed by (seed, purpose + 2⁸) and counter
// (chain·2³² + client, round, candidate, draw), a pure function of the candidate's address.
// Returns |normal|; the candidate's own sign bit (independent of everything here) is applied by
// the caller.
inline double ziggurat_slow(const BatchAddress& a, std::uint32_t candidate, int layer, double x) {
  const Ziggurat& z = ziggurat();
  using Philox = r123::Philox4x64;
  const Philox::key_type key{{a.seed, static_cast<std::uint64_t>(a.purpose) + 0x100u}};
  Philox::ctr_type ctr{{(std::uint64_t{a.chain} << 32) | a.client, a.round, candidate, 0}};
  Philox::ctr_type block{};
  int used = 4;
  auto bits = [&]() -> std::uint64_t {
    if (used == 4) block = Philox()(ctr, key), ctr[3] += 1, used = 0;
    return block[used++];
  };
  auto open_uniform = [&] { return (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53; };
  for (;;) {
    if (layer == 0) {  // x ≥ r: the tail beyond r
      for (;;) {
        const double e1 = -std::log(open_uniform()) / Ziggurat::r;
        const double e2 = -std::log(open_uniform());
        if (e2 + e2 > e1 * e1) return Ziggurat::r + e1;
      }
    }
    // Wedge: accept when a uniform height in [f(x_j), f(x_{j+1})] lies under f(x).
    const double height = z.f[layer] + open_uniform() * (z.f[layer + 1] - z.f[layer]);
    if (height < std::exp(-0.5 * x * x)) return x;
    const std::uint64_t w = bits();  // rejected: a fresh candidate
    layer = ziggurat_layer(w);
    x = ziggurat_uniform(w) * z.x[layer];
    if (x < z.x[layer + 1]) return x;
  }
}

// n independent standard normals of the stream `a`, in a fixed order: normal i is the ziggurat
// output of the 64-bit candidate (w_{2m}, w_{2m+1}) of counter block i/2 (m = i mod 2).
inline void ziggurat_normals_into(const BatchAddress& a, double* out, int n) {
  constexpr int kB = 32;  // counter blocks per vectorised Philox call: 64 candidates
  const Ziggurat& z = ziggurat();
  alignas(64) std::uint32_t w[4][kB];
  alignas(64) std::uint64_t word[2 * kB];
  alignas(64) double value[2 * kB];
  alignas(64) std::uint8_t miss[2 * kB];
  for (std::uint32_t first = 0; n > 0; first += kB) {
    const int blocks = std::min(kB, (n + 1) / 2);
    // Only as many counter blocks as needed (block i does not depend on the batch size).
    if (blocks > kB / 2) {
      estimators::detail::philox4x32_batch<kB>(a, first, w[0], w[1], w[2], w[3]);
    } else if (blocks > kB / 4) {
      estimators::detail::philox4x32_batch<kB / 2>(a, first, w[0], w[1], w[2], w[3]);
    } else {
      estimators::detail::philox4x32_batch<kB / 4>(a, first, w[0], w[1], w[2], w[3]);
    }
    for (int i = 0; i < blocks; ++i) {
      word[2 * i] = (std::uint64_t{w[0][i]} << 32) | w[1][i];
      word[2 * i + 1] = (std::uint64_t{w[2][i]} << 32) | w[3][i];
    }
    const int take = std::min(n, 2 * blocks);
    for (int i = 0; i < take; ++i) {  // the fast path, vectorised (gathers from the tables)
      const int layer = ziggurat_layer(word[i]);
      const double x = ziggurat_uniform(word[i]) * z.x[layer];
      const double sign = 1.0 - static_cast<double>((word[i] >> 7) & 0x2u);  // bit 8: ±1
      value[i] = sign * x;
      miss[i] = static_cast<std::uint8_t>(!(x < z.x[layer + 1]));
    }
    for (int i = 0; i < take; ++i) {  // ≈ 1.5 % of the candidates
      if (miss[i] == 0) continue;
      const double x = std::abs(value[i]);
      value[i] = std::copysign(
          ziggurat_slow(a, 2 * first + static_cast<std::uint32_t>(i), ziggurat_layer(word[i]), x),
          value[i]);
    }
    std::copy(value, value + take, out);
    out += take;
    n -= take;
  }
}

}  // namespace fedverify::bench
