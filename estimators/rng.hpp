// Counter-based random streams (Philox4x64-10, Random123).
//
// A stream is addressed by (seed, purpose, chain, client, round): the numbers it produces are a
// pure function of that address and of how many numbers were drawn before, never of thread
// count or scheduling. This is what makes "same seed ⇒ bit-identical results, whatever the
// number of threads" hold by construction (DESIGN.md, rng).
#pragma once

#include <Random123/philox.h>
#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace fedverify::estimators {

// What a stream is used for; part of the key so that different uses never share numbers.
enum class Purpose : std::uint64_t {
  problem_generator = 1,
  gradient_noise = 2,  // additive Gaussian noise / minibatch indices in local steps
  initial_state = 3,
  projections = 4,   // sliced Wasserstein directions
  second_run = 5,    // FedRR's run at 2γ when its noise is independent
  personalised = 6,  // L2GD coin flips (local step or averaging step)
  compression = 7,   // randomness of the unbiased compressors (P5)
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
// Why this generator (measured once with a throw-away micro-benchmark, not in the repository; g++
// 12 -O3 -march=native, AMD EPYC Zen 5, machine shared with builds, 100 normals per call):
//   Stream::normal()  (Philox4x64 scalar + Box–Muller with std::log/sin/cos): 59 ns/normal;
//   normals_into()    (Philox4x32 SoA over 64 counters, vectorised 32×32→64 multiplies, then
//                      Marsaglia's polar method with Eigen's vectorised log, branch-free
//                      compaction of the accepted pairs):                          6.4 ns/normal.
// The polar method keeps the sin/cos of Box–Muller off the critical path; its rejections (1 − π/4
// of the candidate pairs) are paid in vectorised arithmetic, and candidate i always comes from
// counter block i, so the output does not depend on how many candidates are evaluated at once.
struct BatchAddress {
  std::uint64_t seed = 0;
  Purpose purpose = Purpose::gradient_noise;
  std::uint32_t chain = 0;
  std::uint32_t client = 0;
  std::uint32_t round = 0;
};

namespace detail {

inline constexpr int kPhiloxBatch = 64;  // counter blocks per vectorised Philox call

// Philox4x32-10 (Salmon et al. 2011; the constants of Random123's philox.h) on kPhiloxBatch
// consecutive counters (first, c1, c2, c3), structure-of-arrays so the loop vectorises.
template <int kCount = kPhiloxBatch>
inline void philox4x32_batch(const BatchAddress& a, std::uint32_t first, std::uint32_t* w0,
                             std::uint32_t* w1, std::uint32_t* w2, std::uint32_t* w3) {
  std::uint32_t k0 = static_cast<std::uint32_t>(a.seed);
  std::uint32_t k1 = static_cast<std::uint32_t>(a.seed >> 32);
  const std::uint32_t c3 = (a.client & 0xFFFFFFu) | (static_cast<std::uint32_t>(a.purpose) << 24);
  for (int i = 0; i < kCount; ++i) {
    w0[i] = first + static_cast<std::uint32_t>(i);
    w1[i] = a.round;
    w2[i] = a.chain;
    w3[i] = c3;
  }
  for (int r = 0; r < 10; ++r) {
    for (int i = 0; i < kCount; ++i) {
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * w0[i];
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * w2[i];
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ w1[i] ^ k0;
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ w3[i] ^ k1;
      w0[i] = n0;
      w1[i] = static_cast<std::uint32_t>(p1);
      w2[i] = n2;
      w3[i] = static_cast<std::uint32_t>(p0);
    }
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
}

// Uniform on [−1, 1) with 53-bit resolution from two 32-bit words.
inline double symmetric_uniform(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = (std::uint64_t{hi} << 32) | lo;
  return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace detail

// n independent standard normals of the stream `a`, in a fixed order (Marsaglia's polar method:
// (u, v) uniform on the square, accepted when 0 < s = u² + v² < 1, giving u·f and v·f with
// f = √(−2 log s / s)).
inline void normals_into(const BatchAddress& a, double* out, int n) {
  constexpr int kB = detail::kPhiloxBatch;
  alignas(64) std::uint32_t w0[kB], w1[kB], w2[kB], w3[kB];
  alignas(64) double u[kB], v[kB], s[kB], accepted[2 * kB + 2];
  int filled = 0;
  for (std::uint32_t first = 0; filled < n; first += kB) {
    detail::philox4x32_batch(a, first, w0, w1, w2, w3);
    for (int i = 0; i < kB; ++i) {
      u[i] = detail::symmetric_uniform(w0[i], w1[i]);
      v[i] = detail::symmetric_uniform(w2[i], w3[i]);
      s[i] = u[i] * u[i] + v[i] * v[i];
    }
    using Batch = Eigen::Array<double, kB, 1>;
    const Eigen::Map<const Batch> s_batch(s);
    // max(s, tiny) only keeps the rejected s = 0 candidate finite; accepted s are ≥ 2⁻¹⁰⁴.
    const Batch factor = (-2.0 * s_batch.max(0x1.0p-1000).log() / s_batch).sqrt();
    int m = 0;
    for (int i = 0; i < kB; ++i) {  // branch-free compaction
      accepted[m] = u[i] * factor[i];
      accepted[m + 1] = v[i] * factor[i];
      m += 2 * static_cast<int>(s[i] > 0.0 && s[i] < 1.0);
    }
    const int take = std::min(m, n - filled);
    std::copy(accepted, accepted + take, out + filled);
    filled += take;
  }
}

// n integers uniform on {0, …, range − 1} of the stream `a` (multiply-shift on 32-bit words;
// bias < range / 2³², e.g. < 1.2e-8 for 50 samples per client).
inline void indices_into(const BatchAddress& a, std::uint32_t range, std::uint32_t* out, int n) {
  // 8 counter blocks (32 indices) per call: a round needs only H·B indices per chain, and the
  // output does not depend on the batch size (index i is word i mod 4 of counter block i/4).
  constexpr int kB = 8;
  alignas(64) std::uint32_t w[4][kB];
  for (std::uint32_t first = 0; n > 0; first += kB) {
    detail::philox4x32_batch<kB>(a, first, w[0], w[1], w[2], w[3]);
    const int take = std::min(n, 4 * kB);
    for (int i = 0; i < take; ++i) {
      const std::uint32_t word = w[i % 4][i / 4];
      out[i] = static_cast<std::uint32_t>((std::uint64_t{word} * range) >> 32);
    }
    out += take;
    n -= take;
  }
}

}  // namespace fedverify::estimators
