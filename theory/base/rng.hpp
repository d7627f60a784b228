// Counter-based random streams (Philox4x64-10, Random123).
//
// A stream is addressed by (seed, purpose, chain, client, round): the numbers it produces are a
// pure function of that address and of how many numbers were drawn before, never of thread
// count or scheduling. This is what makes "same seed ⇒ bit-identical results, whatever the
// number of threads" hold by construction (docs/ARCHITECTURE.md, "The chain engine").
#pragma once

#include <Random123/philox.h>
#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace fedverify::estimators {

// What a stream is used for; part of the key so that different uses never share numbers.
enum class Purpose : std::uint64_t {
  problem_generator = 1,
  gradient_noise = 2,  // additive Gaussian noise / minibatch indices in local steps
  initial_state = 3,
  projections = 4,      // sliced Wasserstein directions
  second_run = 5,       // FedRR's run at 2γ when its noise is independent
  personalised = 6,     // L2GD coin flips (local step or averaging step)
  compression = 7,      // randomness of the unbiased compressors (P5)
  client_sampling = 8,  // FedOpt's S of N clients of a round (O5)
  calibration = 9,      // Monte Carlo null distributions of test statistics (estimators/statistics)
  server_noise = 10,    // DP-FedAvg's Gaussian noise added by the server (THEORY A5)
  test = 99,
};

class Stream {
 public:
  using Philox = r123::Philox4x64;

  Stream(std::uint64_t seed, Purpose purpose, std::uint64_t chain = 0, std::uint64_t client = 0,
         std::uint64_t round = 0)
      : key_{{seed, static_cast<std::uint64_t>(purpose)}}, ctr_{{chain, client, round, 0}} {}

  // Next 64 random bits.
  std::uint64_t bits() {
    if (used_ == 4) refill();
    return block_[used_++];
  }

  // Uniform on the open interval (0, 1), 53-bit resolution.
  double uniform() { return (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53; }

  // Uniform integer in {0, …, n − 1} (Lemire's multiply-shift; bias < n / 2⁶⁴).
  std::uint64_t below(std::uint64_t n) {
    // NOLINTNEXTLINE(modernize-use-using): __extension__ (for -Wpedantic) needs the typedef form
    __extension__ typedef unsigned __int128 Wide;  // GCC/Clang 128-bit product
    return static_cast<std::uint64_t>((static_cast<Wide>(bits()) * n) >> 64);
  }

  // Standard normal (Box–Muller; the second variate of each pair is cached).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = r * std::sin(angle);
    has_spare_ = true;
    return r * std::cos(angle);
  }

 private:
  void refill() {
    const Philox::ctr_type out = Philox()(ctr_, key_);
    for (int i = 0; i < 4; ++i) block_[i] = out[i];
    ctr_[3] += 1;
    used_ = 0;
  }

  Philox::key_type key_;
  Philox::ctr_type ctr_;
  std::array<std::uint64_t, 4> block_{};
  int used_ = 4;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// ---------------------------------------------------------------------------------------------
// Batch streams for the samplers (estimators/chains): the numbers one chain needs in one round
// from one client, generated at once and vectorised along the stream.
//
// Address: key = seed (2×32 bits); counter = (draw block j, round, chain, client | purpose<<24)
// of Philox4x32-10. Draw block j yields four 32-bit words. So the numbers are a pure function of
// (seed, purpose, chain, client, round, position in the round's sequence), never of thread
// count, block partition or the number of chains K. Limits: chain, round < 2³², client < 2²⁴.
// (These batches are a second family of streams, distinct from Stream's Philox4x64 numbers.)
//
// Normals: theory/base/normals.hpp (vectorised Box–Muller on these words).
struct BatchAddress {
  std::uint64_t seed = 0;
  Purpose purpose = Purpose::gradient_noise;
  std::uint32_t chain = 0;
  std::uint32_t client = 0;
  std::uint32_t round = 0;
};

namespace detail {

inline constexpr int kPhiloxBatch = 64;  // counter blocks per vectorised Philox call

#if defined(__AVX512F__)
// The ten Philox rounds (philox4x32_rounds below) on kVectors × 8 counters, written with
// vpmuludq (_mm512_mul_epu32: the low 32 bits of each lane times the constant), which GCC 12 no
// longer chose by itself for the generic loop when it is inlined into a larger pass or when
// kCount is large (it emitted vpandq + vpmullq: 3 µops and 15 cycles of latency on Intel Ice
// Lake / Sapphire Rapids, against 1 µop on AMD Zen 4; bench/README.md, run 15). Rounds outer, so
// the kVectors vectors' chains interleave.
template <int kVectors>
inline void philox4x32_rounds_zmm(std::uint64_t* w0, std::uint64_t* w1, std::uint64_t* w2,
                                  std::uint64_t* w3, std::uint64_t seed) {
  constexpr std::uint64_t kLow = 0xFFFFFFFFu;
  std::uint64_t k0 = seed & kLow;
  std::uint64_t k1 = seed >> 32;
  __m512i a0[kVectors], a1[kVectors], a2[kVectors], a3[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    a0[v] = _mm512_loadu_si512(w0 + 8 * v);
    a1[v] = _mm512_loadu_si512(w1 + 8 * v);
    a2[v] = _mm512_loadu_si512(w2 + 8 * v);
    a3[v] = _mm512_loadu_si512(w3 + 8 * v);
  }
  const __m512i m0 = _mm512_set1_epi64(0xD2511F53), m1 = _mm512_set1_epi64(0xCD9E8D57);
  for (int r = 0; r < 10; ++r) {
    const __m512i key0 = _mm512_set1_epi64(static_cast<long long>(k0));
    const __m512i key1 = _mm512_set1_epi64(static_cast<long long>(k1));
    for (int v = 0; v < kVectors; ++v) {
      const __m512i p0 = _mm512_mul_epu32(a0[v], m0);
      const __m512i p1 = _mm512_mul_epu32(a2[v], m1);
      a0[v] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), a1[v], key0, 0x96);  // xor
      a1[v] = p1;
      a2[v] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), a3[v], key1, 0x96);
      a3[v] = p0;
    }
    k0 = (k0 + 0x9E3779B9u) & kLow;
    k1 = (k1 + 0xBB67AE85u) & kLow;
  }
  for (int v = 0; v < kVectors; ++v) {
    _mm512_storeu_si512(w0 + 8 * v, a0[v]);
    _mm512_storeu_si512(w1 + 8 * v, a1[v]);
    _mm512_storeu_si512(w2 + 8 * v, a2[v]);
    _mm512_storeu_si512(w3 + 8 * v, a3[v]);
  }
}
#endif

// The ten rounds of Philox4x32-10 (Salmon et al. 2011; the constants of Random123's philox.h)
// on kCount counters in place, key = seed (low word k0, high word k1), structure-of-arrays so the
// loop vectorises. The words are held in 64-bit lanes: (w & 0xFFFFFFFF)·C then compiles to
// the 32×32→64 vpmuludq instead of the 64-bit vpmullq that the u32-array form produced
// (measured 1.3–1.4 vs 2.2–2.3 ns per counter block, bit-identical output). On return the upper 32
// bits of each lane are garbage (the rounds never mask them: a multiply reads only the low half):
// callers use the low 32 bits only. On AVX-512, kCount a multiple of 8: philox4x32_rounds_zmm
// on chunks of up to 64 counters (8 registers per word: the 32 registers hold a chunk).
template <int kCount>
inline void philox4x32_rounds(std::uint64_t* w0, std::uint64_t* w1, std::uint64_t* w2,
                              std::uint64_t* w3, std::uint64_t seed) {
#if defined(__AVX512F__)
  if constexpr (kCount % 8 == 0) {
    constexpr int kChunk = 64;
    int at = 0;
    for (; at + kChunk <= kCount; at += kChunk) {
      philox4x32_rounds_zmm<kChunk / 8>(w0 + at, w1 + at, w2 + at, w3 + at, seed);
    }
    if constexpr (kCount % kChunk != 0) {
      philox4x32_rounds_zmm<kCount % kChunk / 8>(w0 + at, w1 + at, w2 + at, w3 + at, seed);
    }
    return;
  }
#endif
  constexpr std::uint64_t kLow = 0xFFFFFFFFu;
  std::uint64_t k0 = seed & kLow;
  std::uint64_t k1 = seed >> 32;
  for (int r = 0; r < 10; ++r) {
    for (int i = 0; i < kCount; ++i) {
      const std::uint64_t p0 = (w0[i] & kLow) * std::uint64_t{0xD2511F53u};
      const std::uint64_t p1 = (w2[i] & kLow) * std::uint64_t{0xCD9E8D57u};
      w0[i] = (p1 >> 32) ^ w1[i] ^ k0;
      w1[i] = p1;
      w2[i] = (p0 >> 32) ^ w3[i] ^ k1;
      w3[i] = p0;
    }
    k0 = (k0 + 0x9E3779B9u) & kLow;  // Weyl key schedule
    k1 = (k1 + 0xBB67AE85u) & kLow;
  }
}

// The word c3 of a batch stream's counter: client (24 bits) and purpose (8 bits).
inline std::uint32_t philox_client_word(const BatchAddress& a) {
  return (a.client & 0xFFFFFFu) | (static_cast<std::uint32_t>(a.purpose) << 24);
}

// Philox4x32-10 on kCount consecutive counters (first, c1, c2, c3) of the stream `a`.
template <int kCount = kPhiloxBatch>
inline void philox4x32_batch(const BatchAddress& a, std::uint32_t first, std::uint32_t* out0,
                             std::uint32_t* out1, std::uint32_t* out2, std::uint32_t* out3) {
  alignas(64) std::uint64_t w0[kCount], w1[kCount], w2[kCount], w3[kCount];
  const std::uint32_t c3 = philox_client_word(a);
  for (int i = 0; i < kCount; ++i) {
    w0[i] = first + static_cast<std::uint32_t>(i);
    w1[i] = a.round;
    w2[i] = a.chain;
    w3[i] = c3;
  }
  philox4x32_rounds<kCount>(w0, w1, w2, w3, a.seed);
  for (int i = 0; i < kCount; ++i) {
    out0[i] = static_cast<std::uint32_t>(w0[i]);
    out1[i] = static_cast<std::uint32_t>(w1[i]);
    out2[i] = static_cast<std::uint32_t>(w2[i]);
    out3[i] = static_cast<std::uint32_t>(w3[i]);
  }
}

}  // namespace detail

// n integers uniform on {0, …, range − 1} of the stream `a` (multiply-shift on 32-bit words;
// bias < range / 2³², e.g. < 1.2e-8 for 50 samples per client).
inline void indices_into(const BatchAddress& a, std::uint32_t range, std::uint32_t* out, int n) {
  // At most 8 counter blocks (32 indices) per call, 4 when that suffices: a round needs only
  // H·B indices per chain (10 in the benchmark), and the output does not depend on the batch
  // size (index i is word i mod 4 of counter block i/4).
  constexpr int kB = 8;
  alignas(64) std::uint32_t w[4][kB];
  for (std::uint32_t first = 0; n > 0; first += kB) {
    if (n > 2 * kB) {
      detail::philox4x32_batch<kB>(a, first, w[0], w[1], w[2], w[3]);
    } else {
      detail::philox4x32_batch<kB / 2>(a, first, w[0], w[1], w[2], w[3]);
    }
    const int take = std::min(n, 4 * kB);
    for (int i = 0; i < take; ++i) {
      const std::uint32_t word = w[i % 4][i / 4];
      out[i] = static_cast<std::uint32_t>((std::uint64_t{word} * range) >> 32);
    }
    out += take;
    n -= take;
  }
}

namespace detail {

// Counter blocks first … first + kBlocks − 1 of kChains consecutive chains (a.chain, a.chain +
// 1, …) in one vectorised Philox pass: w[j][b·kChains + lane] is word j of block first + b of
// chain a.chain + lane (in the low 32 bits).
template <int kChains, int kBlocks>
inline void philox_across_chains(const BatchAddress& a, std::uint32_t first,
                                 std::uint64_t (&w)[4][kChains * kBlocks]) {
  constexpr int kCount = kChains * kBlocks;
  const std::uint32_t c3 = philox_client_word(a);
  for (int i = 0; i < kCount; ++i) {  // counter i: block first + i / kChains, chain i mod kChains
    w[0][i] = first + static_cast<std::uint32_t>(i / kChains);
    w[1][i] = a.round;
    w[2][i] = a.chain + static_cast<std::uint32_t>(i % kChains);
    w[3][i] = c3;
  }
  philox4x32_rounds<kCount>(w[0], w[1], w[2], w[3], a.seed);
}

// kBlocks counter blocks (first, first + 1, …) of kChains consecutive chains, turned into the
// indices 4·first … 4·(first + kBlocks) − 1 of each chain, lane-interleaved (see below); the
// first `take` of them are written.
template <int kChains, int kBlocks>
inline void index_blocks_across_chains(const BatchAddress& a, std::uint32_t first,
                                       std::uint32_t range, std::uint32_t* out, int take) {
  alignas(64) std::uint64_t w[4][kChains * kBlocks];
  philox_across_chains<kChains, kBlocks>(a, first, w);
  for (int i = 0; i < take; ++i) {  // index 4·first + i = word i mod 4 of block first + i / 4
    for (int lane = 0; lane < kChains; ++lane) {
      const std::uint64_t word = w[i % 4][(i / 4) * kChains + lane] & 0xFFFFFFFFu;
      out[i * kChains + lane] = static_cast<std::uint32_t>((word * range) >> 32);
    }
  }
}

}  // namespace detail

// The indices of kChains consecutive chains at once, lane-interleaved: out[i·kChains + lane] is
// index i of the stream (a with chain a.chain + lane), bit-identical to indices_into on that
// stream (index i = word i mod 4 of counter block i/4, multiply-shift into the range). Each
// Philox evaluation covers kChains chains × up to 4 counter blocks (only as many as needed),
// vectorised across chains.
template <int kChains>
inline void indices_across_chains(const BatchAddress& a, std::uint32_t range, std::uint32_t* out,
                                  int n) {
  for (std::uint32_t first = 0; n > 0; first += 4) {
    const int take = std::min(n, 16);
    switch ((take + 3) / 4) {
      case 1:
        detail::index_blocks_across_chains<kChains, 1>(a, first, range, out, take);
        break;
      case 2:
        detail::index_blocks_across_chains<kChains, 2>(a, first, range, out, take);
        break;
      case 3:
        detail::index_blocks_across_chains<kChains, 3>(a, first, range, out, take);
        break;
      default:
        detail::index_blocks_across_chains<kChains, 4>(a, first, range, out, take);
    }
    out += take * kChains;
    n -= take;
  }
}

}  // namespace fedverify::estimators
