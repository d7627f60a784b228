// The logistic local-step kernel of the samplers (used by kernels/logistic.hpp): H local steps of
// one client on a block of kPackLanes = 8 chains (one chain per SIMD lane), fused into one pass
// per step
//
//   s_b = ã_{j_b}ᵀ y,   c_b = (γ/B) / (1 + e^{s_b}),   y ← (1 − γλ) y + Σ_b c_b ã_{j_b} − γ ξ,
//
// which is y ← y − γ(g + ξ) with g = mean_b φ'(s_b) y_b a_b + λy, φ'(s) = −1/(1 + e^s), written
// on the signed rows ã = y a (THEORY §6). The state of the block stays in registers across the H
// steps when d ≤ kMaxFixedDim (one instantiation per d); larger d runs the same code with the
// state in memory.
//
// Two implementations of the 8-lane arithmetic (namespace simd): AVX-512 intrinsics when the
// compiler targets AVX-512F, portable loops otherwise. They run the same operations in the same
// order; they differ only in the rounding of the exponent scaling (vscalefpd vs two
// multiplications, which differ only when e^s is subnormal).
//
// Measurements behind the choices (bench/README.md, run 5; core cycles at ≈ 3.3 GHz): on this
// Zen 5 VM vgatherdpd costs ≈ 35 TSC cycles per 8 doubles (microcoded), so the sampled rows are
// fetched with ordinary row loads and an in-register transpose. One block alone is bound by the
// latency of one step's chain (weight → update → next dot product), so the weight uses vdivpd
// (13 cycles latency) rather than vrcp14pd + two Newton steps (21 cycles), and the sampler hands
// two clients of the same chains to logistic_local_steps_pair, whose interleaved steps overlap
// one block's latency with the other's work (run 8: 2.40–2.57 against 2.87 ns per chain-step).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace fedverify::estimators::simd {

inline constexpr int kPackLanes = 8;

#if defined(__AVX512F__)

// Eight doubles in one zmm register.
struct Pack {
  __m512d v;
};

inline Pack broadcast(double x) { return {_mm512_set1_pd(x)}; }
inline Pack load(const double* p) { return {_mm512_loadu_pd(p)}; }
inline void store(double* p, Pack a) { _mm512_storeu_pd(p, a.v); }
inline Pack operator+(Pack a, Pack b) { return {_mm512_add_pd(a.v, b.v)}; }
inline Pack operator-(Pack a, Pack b) { return {_mm512_sub_pd(a.v, b.v)}; }
inline Pack operator*(Pack a, Pack b) { return {_mm512_mul_pd(a.v, b.v)}; }
// a·b + c with one rounding.
inline Pack fma(Pack a, Pack b, Pack c) { return {_mm512_fmadd_pd(a.v, b.v, c.v)}; }
// max(lo, min(x, hi)); a NaN x becomes hi (callers keep NaN states NaN by other means).
[[gnu::always_inline]] inline Pack clamp(Pack x, double lo, double hi) {
  return {_mm512_max_pd(_mm512_set1_pd(lo), _mm512_min_pd(x.v, _mm512_set1_pd(hi)))};
}
// min(x, hi); a NaN x becomes hi.
[[gnu::always_inline]] inline Pack minimum(Pack x, double hi) {
  return {_mm512_min_pd(x.v, _mm512_set1_pd(hi))};
}
// γ/x where lo ≤ s ≤ hi, γ where s < lo, 0 where s > hi: one masked vdivpd, whose masks come
// from s and so stay off the latency path of x (lanes outside [lo, hi] are not divided at all).
[[gnu::always_inline]] inline Pack quotient_within(double gamma, Pack x, Pack s, double lo,
                                                   double hi) {
  const __m512d g = _mm512_set1_pd(gamma);
  const __mmask8 below = _mm512_cmp_pd_mask(s.v, _mm512_set1_pd(lo), _CMP_LT_OQ);
  const __mmask8 above = _mm512_cmp_pd_mask(s.v, _mm512_set1_pd(hi), _CMP_GT_OQ);
  const __m512d limit = _mm512_maskz_mov_pd(below, g);
  return {_mm512_mask_div_pd(limit, static_cast<__mmask8>(~(below | above)), g, x.v)};
}
// p·2ⁿ for integral n, exact unless the result under/overflows (vscalefpd: ±inf, subnormal, 0).
[[gnu::always_inline]] inline Pack scale_by_power_of_two(Pack p, Pack n) {
  return {_mm512_scalef_pd(p.v, n.v)};
}

// Columns k0 … k0+3 of the 8 rows at table + offset[l] (row-major), transposed into lanes:
// column[j] lane l = table[offset[l] + k0 + j]. Reads 4 doubles of every row (the table carries
// kRowPadding doubles past its last row). Rows l and l+4 share a register (row l + 4 by a
// masked broadcast load), then two shuffle stages (unpack pairs, then cross-lane permutes):
// 8 loads and 8 shuffles per 4 columns.
[[gnu::always_inline]] inline void rows_to_lanes4(const double* table, const std::uint32_t* offset,
                                                  int k0, Pack column[4]) {
  __m512d pair[4];  // [row l, columns k0…k0+3 | row l+4, same columns]
  for (int l = 0; l < 4; ++l) {
    // Row l + 4 enters the upper half by a masked broadcast load (a load µop, no shuffle).
    pair[l] =
        _mm512_mask_broadcast_f64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(table + offset[l] + k0)),
                                    0xF0, _mm256_loadu_pd(table + offset[l + 4] + k0));
  }
  const __m512d even01 = _mm512_unpacklo_pd(pair[0], pair[1]);  // columns 0, 2 of rows 0, 1 | 4, 5
  const __m512d odd01 = _mm512_unpackhi_pd(pair[0], pair[1]);   // columns 1, 3
  const __m512d even23 = _mm512_unpacklo_pd(pair[2], pair[3]);  // columns 0, 2 of rows 2, 3 | 6, 7
  const __m512d odd23 = _mm512_unpackhi_pd(pair[2], pair[3]);
  const __m512i first = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);     // column 0 (or 1)
  const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);  // column 2 (or 3)
  column[0].v = _mm512_permutex2var_pd(even01, first, even23);
  column[1].v = _mm512_permutex2var_pd(odd01, first, odd23);
  column[2].v = _mm512_permutex2var_pd(even01, second, even23);
  column[3].v = _mm512_permutex2var_pd(odd01, second, odd23);
}

// Columns k0, k0 + 1 of the 8 rows, transposed into lanes (the tail of a row whose length is
// 1 or 2 mod 4). Rows 0, 2, 4, 6 fill the four 128-bit quarters of one register and rows 1, 3,
// 5, 7 those of another (masked broadcast loads); one unpack stage then gives each column in
// lane order: 8 loads and 2 shuffles per 2 columns.
[[gnu::always_inline]] inline void rows_to_lanes2(const double* table, const std::uint32_t* offset,
                                                  int k0, Pack column[2]) {
  __m512d quarters[2];  // quarters[p]: rows p, p + 2, p + 4, p + 6, columns k0, k0 + 1
  for (int p = 0; p < 2; ++p) {
    __m512d q = _mm512_castpd128_pd512(_mm_loadu_pd(table + offset[p] + k0));
    q = _mm512_mask_broadcast_f64x2(q, 0x0C, _mm_loadu_pd(table + offset[p + 2] + k0));
    q = _mm512_mask_broadcast_f64x2(q, 0x30, _mm_loadu_pd(table + offset[p + 4] + k0));
    quarters[p] = _mm512_mask_broadcast_f64x2(q, 0xC0, _mm_loadu_pd(table + offset[p + 6] + k0));
  }
  column[0].v = _mm512_unpacklo_pd(quarters[0], quarters[1]);
  column[1].v = _mm512_unpackhi_pd(quarters[0], quarters[1]);
}

#else  // portable: loops over the lanes that the compiler may vectorise with what it has

struct Pack {
  double v[kPackLanes];
};

// Every operation is forced inline: an out-of-line call per operation (GCC 12 left the lambdas of
// exp_in_range out of line, ≈ 18 % of a d = 3 FedOpt run) would spill the packs to memory.
template <class F>
[[gnu::always_inline]] inline Pack lanewise(F f) {
  Pack r;
  for (int l = 0; l < kPackLanes; ++l) r.v[l] = f(l);
  return r;
}
[[gnu::always_inline]] inline Pack broadcast(double x) {
  return lanewise([&](int) __attribute__((always_inline)) { return x; });
}
[[gnu::always_inline]] inline Pack load(const double* p) {
  return lanewise([&](int l) __attribute__((always_inline)) { return p[l]; });
}
[[gnu::always_inline]] inline void store(double* p, Pack a) { std::copy(a.v, a.v + kPackLanes, p); }
[[gnu::always_inline]] inline Pack operator+(Pack a, Pack b) {
  return lanewise([&](int l) __attribute__((always_inline)) { return a.v[l] + b.v[l]; });
}
[[gnu::always_inline]] inline Pack operator-(Pack a, Pack b) {
  return lanewise([&](int l) __attribute__((always_inline)) { return a.v[l] - b.v[l]; });
}
[[gnu::always_inline]] inline Pack operator*(Pack a, Pack b) {
  return lanewise([&](int l) __attribute__((always_inline)) { return a.v[l] * b.v[l]; });
}
[[gnu::always_inline]] inline Pack fma(Pack a, Pack b, Pack c) {
  return lanewise([&](int l)
                      __attribute__((always_inline)) { return std::fma(a.v[l], b.v[l], c.v[l]); });
}
[[gnu::always_inline]] inline Pack clamp(Pack x, double lo, double hi) {
  return lanewise([&](int l) __attribute__((always_inline)) {
    return std::max(lo, std::min(x.v[l], hi));
  });
}
[[gnu::always_inline]] inline Pack minimum(Pack x, double hi) {
  return lanewise([&](int l) __attribute__((always_inline)) { return std::min(x.v[l], hi); });
}
[[gnu::always_inline]] inline Pack quotient_within(double gamma, Pack x, Pack s, double lo,
                                                   double hi) {
  return lanewise([&](int l) __attribute__((always_inline)) {
    return s.v[l] < lo ? gamma : s.v[l] > hi ? 0.0 : gamma / x.v[l];
  });
}
// p·2ⁿ for integral |n| ≤ 2044 as p·2^{n₁}·2^{n₂}, n₁ = ⌊n/2⌋, n₂ = n − n₁ (both powers normal).
[[gnu::always_inline]] inline Pack scale_by_power_of_two(Pack p, Pack n) {
  auto power =
      [](std::int64_t k) __attribute__((always_inline)) {  // 2ᵏ for −1022 ≤ k ≤ 1023, from its bits
    const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
    double r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
  };
  return lanewise([&](int l) __attribute__((always_inline)) {
    const auto k = static_cast<std::int64_t>(n.v[l]);
    const std::int64_t k1 = k >= 0 ? k / 2 : -((-k + 1) / 2);
    return p.v[l] * power(k1) * power(k - k1);
  });
}
[[gnu::always_inline]] inline void rows_to_lanes4(const double* table, const std::uint32_t* offset,
                                                  int k0, Pack column[4]) {
  for (int j = 0; j < 4; ++j) {
    for (int l = 0; l < kPackLanes; ++l) column[j].v[l] = table[offset[l] + k0 + j];
  }
}
[[gnu::always_inline]] inline void rows_to_lanes2(const double* table, const std::uint32_t* offset,
                                                  int k0, Pack column[2]) {
  for (int j = 0; j < 2; ++j) {
    for (int l = 0; l < kPackLanes; ++l) column[j].v[l] = table[offset[l] + k0 + j];
  }
}

#endif

// Doubles readable past the last row of a table passed to rows_to_lanes4.
inline constexpr int kRowPadding = 4;

// e^s in every lane for s ∈ [−746, 710] (callers clamp; beyond, e^s rounds to 0 or overflows to
// +inf anyway, and so does this). s = n ln2 + r with n = round(s/ln2), |r| ≤ ln2/2 (Cody–Waite:
// ln2 split into a head whose products with |n| ≤ 2¹¹ are exact, and a tail); e^r by its Taylor
// polynomial of degree 13 (truncation ≤ (ln2/2)¹⁴/14! · e^{ln2/2} < 6e-18 relative), evaluated
// by Estrin's scheme (depth 4 instead of Horner's 13); then the exponent scaling. Error against
// std::exp: logistic_kernel_test.cpp (ExpAndTheLogisticWeightMatchTheLibraryExp).
[[gnu::always_inline]] inline Pack exp_in_range(Pack s) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Head = 0x1.62e42fefa3800p-1;   // ln 2 with 11 trailing zero bits
  constexpr double kLn2Tail = 0x1.ef35793c76730p-45;  // ln 2 − kLn2Head
  constexpr double kShifter = 0x1.8p52;  // x + 1.5·2⁵² rounds x to an integer (|x| < 2⁵¹)
  const Pack n = fma(s, broadcast(kLog2e), broadcast(kShifter)) - broadcast(kShifter);
  Pack r = fma(n, broadcast(-kLn2Head), s);
  r = fma(n, broadcast(-kLn2Tail), r);
  // Taylor coefficients 1/k!, k = 0 … 13.
  constexpr int kDegree = 13;
  double c[kDegree + 1] = {1.0};
  for (int k = 1; k <= kDegree; ++k) c[k] = c[k - 1] / k;
  auto linear = [&](int k) __attribute__((always_inline)) {
    return fma(broadcast(c[k + 1]), r, broadcast(c[k]));
  };
  const Pack r2 = r * r;
  const Pack r4 = r2 * r2;
  const Pack r8 = r4 * r4;
  const Pack low = fma(fma(linear(6), r2, linear(4)), r4, fma(linear(2), r2, linear(0)));
  const Pack high = fma(linear(12), r4, fma(linear(10), r2, linear(8)));
  return scale_by_power_of_two(fma(high, r8, low), n);
}

// e^s in every lane, any s: 0 below −745.2, +inf above 709.78.
[[gnu::always_inline]] inline Pack exp(Pack s) { return exp_in_range(clamp(s, -746.0, 710.0)); }

// Above this s the weight γ/(1 + e^s) < γ·1e-304 is set to 0 (its contribution to y is below
// the ulp of any state of magnitude > 1e-288); below it 1 + e^s ≤ 1e304 is a normal number whose
// reciprocal is normal too.
inline constexpr double kSaturation = 700.0;

// Below this s, e^s rounds to 0 and the weight is γ.
inline constexpr double kExpUnderflow = -746.0;

// γ/(1 + e^s) = −γ φ'(s), the step weight of the signed row ã (THEORY §6). Lanes with
// s < kExpUnderflow (where exp_in_range may return anything) take the limit γ from the masked
// division, so only the upper clamp is on the latency path.
[[gnu::always_inline]] inline Pack logistic_weight(Pack s, double gamma) {
  const Pack e = exp_in_range(minimum(s, kSaturation));
  return quotient_within(gamma, broadcast(1.0) + e, s, kExpUnderflow, kSaturation);
}

// --- H local steps on one block -------------------------------------------------------------

// What the H local steps of one client on one block of kPackLanes chains read.
struct LogisticBlock {
  const double* table = nullptr;  // the client's signed rows ã_j, row-major n_c × d, + padding
  // Offset j·d of the sampled row of draw b in step h for lane l, at (h·B + b)·kPackLanes + l.
  const std::uint32_t* offsets = nullptr;
  int dim = 0;
  int steps = 0;  // H
  int batch = 1;  // B
  double gamma = 0;
  double l2 = 0;  // λ
};

namespace detail {

// f(k) for k = 0 … n − 1: expanded at compile time when n is an std::integral_constant (so every
// array index is a constant and the packs stay in registers), a loop when n is an int.
template <class Count, class F>
[[gnu::always_inline]] inline void for_each_index(Count n, F&& f) {
  if constexpr (std::is_same_v<Count, int>) {
    for (int k = 0; k < n; ++k) f(k);
  } else {
    [&]<int... K>(std::integer_sequence<int, K...>) __attribute__((always_inline)) { (f(K), ...); }
    (std::make_integer_sequence<int, Count::value>{});
  }
}

// ⌈d/4⌉, the number of 4-column chunks, of the same kind as d.
template <class Dim>
constexpr auto chunks_of_four(Dim dim) {
  if constexpr (std::is_same_v<Dim, int>) {
    return (dim + 3) / 4;
  } else {
    return std::integral_constant<int, (Dim::value + 3) / 4>{};
  }
}

// s = ã·y per lane, with four partial sums (k mod 4) to shorten the dependency chain.
template <class Dim>
[[gnu::always_inline]] inline Pack dot(Dim dim, const Pack* a, const Pack* y) {
  Pack part[4] = {broadcast(0.0), broadcast(0.0), broadcast(0.0), broadcast(0.0)};
  for_each_index(
      dim, [&](int k)
               __attribute__((always_inline)) { part[k % 4] = fma(a[k], y[k], part[k % 4]); });
  return (part[0] + part[1]) + (part[2] + part[3]);
}

// ã of one draw for the 8 lanes: the sampled rows transposed into d packs.
template <class Dim>
[[gnu::always_inline]] inline void fetch_rows(Dim dim, const double* table,
                                              const std::uint32_t* offset, Pack* a) {
  const int d = static_cast<int>(dim);
  for_each_index(
      chunks_of_four(dim), [&](int chunk) __attribute__((always_inline)) {
        if (d - 4 * chunk <= 2) {  // a tail of 1 or 2 columns: the cheaper 2-column transpose
          Pack column[2];
          rows_to_lanes2(table, offset, 4 * chunk, column);
          a[4 * chunk] = column[0];
          if (4 * chunk + 1 < d) a[4 * chunk + 1] = column[1];
          return;
        }
        Pack column[4];
        rows_to_lanes4(table, offset, 4 * chunk, column);
        for_each_index(
            std::integral_constant<int, 4>{}, [&](int j) __attribute__((always_inline)) {
              if (4 * chunk + j < d) a[4 * chunk + j] = column[j];
            });
      });
}

// B = 1: the H steps of M blocks at once (M = 2: two clients of the same chains), each
// statement issued for block 0, then block 1, so that one block's weight latency (≈ 60 cycles:
// exp, division) overlaps the other block's row fetch and dot product (bench/README.md, run 8).
// Per chain the operations and their order do not depend on M, so neither do the results.
//   s_h = ã_hᵀ y_h,  c_h = γ/(1 + e^{s_h}),  y_{h+1} = (1 − γλ) y_h − γξ + c_h ã_h.
template <int M, bool kShift, class Dim>
[[gnu::always_inline]] inline void run_steps_batch_one(Dim dim, const LogisticBlock* const* block,
                                                       Pack* const* y, Pack* const* a,
                                                       const Pack* const* shift) {
  const int steps = block[0]->steps;
  const Pack rho = broadcast(1.0 - block[0]->gamma * block[0]->l2);  // 1 − γλ
  const double weight_scale = block[0]->gamma;                       // γ/B, B = 1
  Pack s[M];
  for (int m = 0; m < M; ++m) {
    fetch_rows(dim, block[m]->table, block[m]->offsets, a[m]);
    s[m] = dot(dim, a[m], y[m]);
  }
  for (int h = 0; h < steps; ++h) {
    Pack c[M];
    for (int m = 0; m < M; ++m) c[m] = logistic_weight(s[m], weight_scale);  // THEORY (§6)
    for (int m = 0; m < M; ++m) {
      // y_{h+1} = y_h − γ(φ'(s_h) ã_h + λ y_h + ξ).                           THEORY (§6)
      for_each_index(
          dim, [&](int k) __attribute__((always_inline)) {
            const Pack u = kShift ? fma(rho, y[m][k], shift[m][k]) : rho * y[m][k];
            y[m][k] = fma(c[m], a[m][k], u);
          });
    }
    if (h + 1 < steps) {
      for (int m = 0; m < M; ++m) {
        fetch_rows(dim, block[m]->table, block[m]->offsets + (h + 1) * kPackLanes, a[m]);
        s[m] = dot(dim, a[m], y[m]);
      }
    }
  }
}

// The H steps on y (d packs) in place; `shift` = −γξ (Scaffold) when kShift. Dim is an
// std::integral_constant (the loops unroll and the arrays live in registers) or an int.
template <bool kShift, class Dim>
[[gnu::always_inline]] inline void run_steps(Dim dim, const LogisticBlock& block, Pack* y, Pack* a,
                                             Pack* acc, const Pack* shift) {
  if (block.batch == 1) {
    const LogisticBlock* blocks[1] = {&block};
    Pack* ys[1] = {y};
    Pack* as[1] = {a};
    const Pack* shifts[1] = {shift};
    run_steps_batch_one<1, kShift>(dim, blocks, ys, as, shifts);
    return;
  }
  const Pack rho = broadcast(1.0 - block.gamma * block.l2);  // 1 − γλ
  const double weight_scale = block.gamma / block.batch;     // γ/B
  const std::uint32_t* offset = block.offsets;
  for (int h = 0; h < block.steps; ++h) {
    for (int b = 0; b < block.batch; ++b, offset += kPackLanes) {
      fetch_rows(dim, block.table, offset, a);
      // c_b = (γ/B)/(1 + e^{ã_bᵀy});  acc = Σ_b c_b ã_b − γξ.                   THEORY (§6)
      const Pack c = logistic_weight(dot(dim, a, y), weight_scale);
      for_each_index(
          dim, [&](int k) __attribute__((always_inline)) {
            const Pack start = b > 0 ? acc[k] : kShift ? shift[k] : broadcast(0.0);
            acc[k] = fma(c, a[k], start);
          });
    }
    // y ← (1 − γλ) y + acc = y − γ(mean_b φ'(s_b) ã_b + λy + ξ).               THEORY (§6)
    for_each_index(
        dim, [&](int k) __attribute__((always_inline)) { y[k] = fma(rho, y[k], acc[k]); });
  }
}

// Loads the block (coordinate-major: (k, lane) at k·kPackLanes + lane), runs the steps, stores.
// state, rows, acc and shift are arrays of d packs.
template <class Dim>
[[gnu::always_inline]] inline void local_steps_on(Dim dim, const LogisticBlock& block, double* y,
                                                  const double* correction, Pack* state, Pack* rows,
                                                  Pack* acc, Pack* shift) {
  const int d = static_cast<int>(dim);
  for (int k = 0; k < d; ++k) state[k] = load(y + k * kPackLanes);
  if (correction != nullptr) {
    for (int k = 0; k < d; ++k) {
      shift[k] = broadcast(-block.gamma) * load(correction + k * kPackLanes);
    }
    run_steps<true>(dim, block, state, rows, acc, shift);
  } else {
    run_steps<false>(dim, block, state, rows, acc, shift);
  }
  for (int k = 0; k < d; ++k) store(y + k * kPackLanes, state[k]);
}

template <int D>
void local_steps_fixed(const LogisticBlock& block, double* y, const double* correction) {
  Pack state[D], rows[D], acc[D], shift[D];  // registers once the loops over k are unrolled
  local_steps_on(std::integral_constant<int, D>{}, block, y, correction, state, rows, acc, shift);
}

// Two blocks of batch 1 with the same d, H, γ and λ (two clients of the same chains).
template <int D>
void local_steps_pair_fixed(const LogisticBlock& b0, double* y0, const double* correction0,
                            const LogisticBlock& b1, double* y1, const double* correction1) {
  const std::integral_constant<int, D> dim;
  Pack state[2][D], rows[2][D], shift[2][D];
  double* const y[2] = {y0, y1};
  const double* const correction[2] = {correction0, correction1};
  for (int m = 0; m < 2; ++m) {
    for (int k = 0; k < D; ++k) state[m][k] = load(y[m] + k * kPackLanes);
  }
  const LogisticBlock* blocks[2] = {&b0, &b1};
  Pack* ys[2] = {state[0], state[1]};
  Pack* as[2] = {rows[0], rows[1]};
  const Pack* shifts[2] = {shift[0], shift[1]};
  if (correction0 != nullptr) {
    for (int m = 0; m < 2; ++m) {
      for (int k = 0; k < D; ++k) {
        shift[m][k] = broadcast(-blocks[m]->gamma) * load(correction[m] + k * kPackLanes);
      }
    }
    run_steps_batch_one<2, true>(dim, blocks, ys, as, shifts);
  } else {
    run_steps_batch_one<2, false>(dim, blocks, ys, as, shifts);
  }
  for (int m = 0; m < 2; ++m) {
    for (int k = 0; k < D; ++k) store(y[m] + k * kPackLanes, state[m][k]);
  }
}

inline constexpr int kMaxFixedDim = 16;
// Pairs only up to d = 10: beyond, two blocks' state and rows (4d packs) no longer fit the 32
// vector registers and the spills cost more than the overlap gains (bench/README.md, run 6).
inline constexpr int kMaxPairDim = 10;

template <int... D>
constexpr auto fixed_kernels(std::integer_sequence<int, D...>) {
  using Kernel = void (*)(const LogisticBlock&, double*, const double*);
  return std::array<Kernel, sizeof...(D)>{&local_steps_fixed<D + 1>...};
}

template <int... D>
constexpr auto pair_kernels(std::integer_sequence<int, D...>) {
  using Kernel = void (*)(const LogisticBlock&, double*, const double*, const LogisticBlock&,
                          double*, const double*);
  return std::array<Kernel, sizeof...(D)>{&local_steps_pair_fixed<D + 1>...};
}

}  // namespace detail

// H local steps of one client on one block of kPackLanes chains, y (d × kPackLanes,
// coordinate-major) in place; correction = ξ (d × kPackLanes) or nullptr (FedAvg).
inline void logistic_local_steps(const LogisticBlock& block, double* y, const double* correction) {
  static constexpr auto kFixed =
      detail::fixed_kernels(std::make_integer_sequence<int, detail::kMaxFixedDim>{});
  if (block.dim >= 1 && block.dim <= detail::kMaxFixedDim) {
    kFixed[block.dim - 1](block, y, correction);
    return;
  }
  // Larger d: the same steps on heap arrays (an O(d) allocation against O(H·d) work).
  const auto d = static_cast<std::size_t>(block.dim);
  std::vector<Pack> packs(4 * d);
  detail::local_steps_on(block.dim, block, y, correction, packs.data(), packs.data() + d,
                         packs.data() + 2 * d, packs.data() + 3 * d);
}

// The H local steps of two clients on the same block of chains (y0, y1 and the corrections as in
// logistic_local_steps; both corrections null or both given), interleaved when both have batch
// 1 and d ≤ kMaxPairDim, else one after the other. The results are those of two calls of
// logistic_local_steps, bit for bit.
inline void logistic_local_steps_pair(const LogisticBlock& b0, double* y0,
                                      const double* correction0, const LogisticBlock& b1,
                                      double* y1, const double* correction1) {
  static constexpr auto kPair =
      detail::pair_kernels(std::make_integer_sequence<int, detail::kMaxPairDim>{});
  const bool same_shape = b0.dim == b1.dim && b0.steps == b1.steps && b0.gamma == b1.gamma &&
                          b0.l2 == b1.l2 && (correction0 == nullptr) == (correction1 == nullptr);
  if (same_shape && b0.batch == 1 && b1.batch == 1 && b0.dim >= 1 &&
      b0.dim <= detail::kMaxPairDim) {
    kPair[b0.dim - 1](b0, y0, correction0, b1, y1, correction1);
    return;
  }
  logistic_local_steps(b0, y0, correction0);
  logistic_local_steps(b1, y1, correction1);
}

}  // namespace fedverify::estimators::simd
