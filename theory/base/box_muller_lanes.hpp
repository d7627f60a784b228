// The Box–Muller transform of theory/base/normals.hpp on a vector of lanes, written with
// intrinsics so that its width and its instructions do not depend on the compiler's tuning
// (issue 32; bench/README.md, run 15).
//
// Why not leave it to the auto-vectoriser (as before): GCC 12 vectorised the scalar helpers
// (log_unit, cos_sin_turn) in 512-bit registers on the AMD Zen 5 build machine, but
//   - with Intel tuning (-march=icelake-server, sapphirerapids: -mprefer-vector-width=256) in
//     256-bit registers only, half the work per instruction on the same AVX-512 hardware;
//   - on AVX2 (no vcvtqq2pd / vcvtuqq2pd: no 64-bit integer → double vector conversion) not at
//     all: the transform ran in scalar code, only the square roots were vectorised.
// Here one lane pass is 8 doubles in one zmm register (AVX-512F) or 4 in one ymm (AVX2 + FMA),
// whatever the tuning, and the integer → double conversions are exact bit tricks that every
// vector ISA has: for 0 ≤ n < 2⁵², the double with bits (n | bits of 2⁵²) is 2⁵² + n exactly,
// so subtracting 2⁵² gives n exactly — the value the conversion instruction gives.
//
// Same bits as the scalar helpers, by construction: every floating-point operation is one of
// theirs, on the same operands, in the same order (add, sub, mul, div, correctly rounded sqrt,
// explicit fma; a negation as a sign-bit flip, as −x compiles to); the conversions are exact and
// so are the integer operations. No product of this file feeds an addition except
// (n + ½)·2⁻³⁰ − ½, whose product is exact, so contraction (-ffp-contract) cannot change a bit.
// Checked: theory/base/normals_test.cpp (lanes against the scalar helpers, bit for bit) and
// estimators/simulation/same_bits_across_cpus_test.cpp (pinned digests).
#pragma once

#include <cstdint>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#define FEDVERIFY_BOX_MULLER_LANES 1
#endif

namespace fedverify::estimators::detail {

#if defined(__AVX512F__)

// 8 lanes in zmm registers (AVX-512F only).
struct Lanes {
  static constexpr int kWidth = 8;
  using D = __m512d;
  using I = __m512i;
  static I load(const std::uint64_t* p) { return _mm512_loadu_si512(p); }
  static void store(double* p, D x) { _mm512_storeu_pd(p, x); }
  static I bits(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static D number(double x) { return _mm512_set1_pd(x); }
  static I band(I a, I b) { return _mm512_and_si512(a, b); }
  static I bor(I a, I b) { return _mm512_or_si512(a, b); }
  static I bxor(I a, I b) { return _mm512_xor_si512(a, b); }
  static I iadd(I a, I b) { return _mm512_add_epi64(a, b); }
  static I isub(I a, I b) { return _mm512_sub_epi64(a, b); }
  template <int kShift>
  static I shl(I a) {
    return _mm512_slli_epi64(a, kShift);
  }
  template <int kShift>
  static I shr(I a) {
    return _mm512_srli_epi64(a, kShift);
  }
  static D as_double(I a) { return _mm512_castsi512_pd(a); }
  static I as_bits(D a) { return _mm512_castpd_si512(a); }
  static D add(D a, D b) { return _mm512_add_pd(a, b); }
  static D sub(D a, D b) { return _mm512_sub_pd(a, b); }
  static D mul(D a, D b) { return _mm512_mul_pd(a, b); }
  static D div(D a, D b) { return _mm512_div_pd(a, b); }
  static D fma(D a, D b, D c) { return _mm512_fmadd_pd(a, b, c); }
  static D sqrt(D a) { return _mm512_sqrt_pd(a); }
  // Per lane: bit 30 of w set ? if_set : if_clear.
  static D select_bit30(I w, D if_set, D if_clear) {
    return _mm512_mask_blend_pd(_mm512_test_epi64_mask(w, bits(0x40000000u)), if_clear, if_set);
  }
};

#elif defined(FEDVERIFY_BOX_MULLER_LANES)

// 4 lanes in ymm registers (AVX2 + FMA).
struct Lanes {
  static constexpr int kWidth = 4;
  using D = __m256d;
  using I = __m256i;
  static I load(const std::uint64_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(double* p, D x) { _mm256_storeu_pd(p, x); }
  static I bits(std::uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static D number(double x) { return _mm256_set1_pd(x); }
  static I band(I a, I b) { return _mm256_and_si256(a, b); }
  static I bor(I a, I b) { return _mm256_or_si256(a, b); }
  static I bxor(I a, I b) { return _mm256_xor_si256(a, b); }
  static I iadd(I a, I b) { return _mm256_add_epi64(a, b); }
  static I isub(I a, I b) { return _mm256_sub_epi64(a, b); }
  template <int kShift>
  static I shl(I a) {
    return _mm256_slli_epi64(a, kShift);
  }
  template <int kShift>
  static I shr(I a) {
    return _mm256_srli_epi64(a, kShift);
  }
  static D as_double(I a) { return _mm256_castsi256_pd(a); }
  static I as_bits(D a) { return _mm256_castpd_si256(a); }
  static D add(D a, D b) { return _mm256_add_pd(a, b); }
  static D sub(D a, D b) { return _mm256_sub_pd(a, b); }
  static D mul(D a, D b) { return _mm256_mul_pd(a, b); }
  static D div(D a, D b) { return _mm256_div_pd(a, b); }
  static D fma(D a, D b, D c) { return _mm256_fmadd_pd(a, b, c); }
  static D sqrt(D a) { return _mm256_sqrt_pd(a); }
  // Per lane: bit 30 of w set ? if_set : if_clear (blendv reads the sign bit: bit 30 << 33).
  static D select_bit30(I w, D if_set, D if_clear) {
    return _mm256_blendv_pd(if_clear, if_set, as_double(shl<33>(w)));
  }
};

#endif

#if defined(FEDVERIFY_BOX_MULLER_LANES)

// Lanes::kWidth Box–Muller pairs (first[i], second[i]) from the radius words u[i] and the angle
// words v[i] (low 32 bits): the scalar box_muller of normals.hpp, lane by lane, to the bit.
template <class L>
[[gnu::always_inline]] inline void box_muller_lanes(const std::uint64_t* u, const std::uint64_t* v,
                                                    double* first, double* second) {
  using D = typename L::D;
  using I = typename L::I;
  constexpr std::uint64_t kTwo52Bits = 0x4330000000000000u;  // the double 2⁵²
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  const I two52_bits = L::bits(kTwo52Bits);
  const D two52 = L::number(0x1.0p52);
  // n (0 ≤ n < 2⁵²) as a double, exactly.
  const auto exact_double = [&](I n) { return L::sub(L::as_double(L::bor(n, two52_bits)), two52); };
  const auto negate = [&](D x) { return L::as_double(L::bxor(L::as_bits(x), L::bits(kSign))); };

  // ρ² = −2 ln u, u = open_uniform32(u word) (log_unit: u = 2ᵏ·m, m ∈ [√½, √2)).
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  constexpr std::uint64_t kMantissa = (std::uint64_t{1} << 52) - 1;
  constexpr std::uint64_t kSqrt2Mantissa = 0x6A09E667F3BCDu;
  const D uniform =
      L::mul(L::add(exact_double(L::band(L::load(u), L::bits(0xFFFFFFFFu))), L::number(0.5)),
             L::number(0x1.0p-32));
  const I ubits = L::as_bits(uniform);
  const I mantissa = L::band(ubits, L::bits(kMantissa));
  // high = 1 when mantissa ≥ the mantissa of √2 (the carry into bit 52), else 0.
  const I high =
      L::template shr<52>(L::iadd(mantissa, L::bits((std::uint64_t{1} << 52) - kSqrt2Mantissa)));
  const D m = L::as_double(L::bor(mantissa, L::template shl<52>(L::isub(L::bits(1023), high))));
  // k = (biased exponent + high) − 1023: both steps exact (small integers).
  const D k = L::sub(exact_double(L::iadd(L::template shr<52>(ubits), high)), L::number(1023.0));
  const D f = L::sub(m, L::number(1.0));
  const D s = L::div(f, L::add(L::number(2.0), f));
  const D z = L::mul(s, s);
  const D w = L::mul(z, z);
  const D t2 =
      L::mul(z, L::fma(w, L::fma(w, L::fma(w, L::number(kLg7), L::number(kLg5)), L::number(kLg3)),
                       L::number(kLg1)));
  const D r =
      L::fma(w, L::fma(w, L::fma(w, L::number(kLg6), L::number(kLg4)), L::number(kLg2)), t2);
  const D inner = L::sub(L::fma(s, L::sub(f, r), L::mul(negate(k), L::number(kLn2Lo))), f);
  const D log_u = L::fma(k, L::number(kLn2Hi), negate(inner));
  const D rho = L::sqrt(L::mul(L::number(-2.0), log_u));

  // (cos θ, sin θ) of the angle word (cos_sin_turn).
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  constexpr double kHalfPi = 1.57079632679489661923;
  const I word = L::load(v);
  const D t =
      L::sub(L::mul(L::add(exact_double(L::band(word, L::bits(0x3FFFFFFFu))), L::number(0.5)),
                    L::number(0x1.0p-30)),
             L::number(0.5));
  const D x = L::mul(t, L::number(kHalfPi));
  const D zz = L::mul(x, x);
  const D sin_r =
      L::fma(zz,
             L::fma(zz, L::fma(zz, L::fma(zz, L::number(kS6), L::number(kS5)), L::number(kS4)),
                    L::number(kS3)),
             L::number(kS2));
  const D sin_x = L::fma(L::mul(zz, x), L::fma(zz, sin_r, L::number(kS1)), x);
  const D cos_r = L::mul(
      zz,
      L::fma(
          zz,
          L::fma(zz,
                 L::fma(zz, L::fma(zz, L::fma(zz, L::number(kC6), L::number(kC5)), L::number(kC4)),
                        L::number(kC3)),
                 L::number(kC2)),
          L::number(kC1)));
  const D cos_x = L::sub(L::number(1.0), L::fma(L::number(0.5), zz, L::mul(negate(zz), cos_r)));
  const I sin_sign = L::band(L::template shl<32>(word), L::bits(kSign));
  const I cos_sign =
      L::band(L::template shl<32>(L::iadd(word, L::bits(0x40000000u))), L::bits(kSign));
  const D sin_t = L::as_double(L::bxor(L::as_bits(L::select_bit30(word, cos_x, sin_x)), sin_sign));
  const D cos_t = L::as_double(L::bxor(L::as_bits(L::select_bit30(word, sin_x, cos_x)), cos_sign));
  L::store(first, L::mul(rho, cos_t));
  L::store(second, L::mul(rho, sin_t));
}

#endif

}  // namespace fedverify::estimators::detail
