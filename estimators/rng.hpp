// Counter-based random streams (Philox4x64-10, Random123).
//
// A stream is addressed by (seed, purpose, chain, client, round): the numbers it produces are a
// pure function of that address and of how many numbers were drawn before, never of thread
// count or scheduling. This is what makes "same seed ⇒ bit-identical results, whatever the
// number of threads" hold by construction (DESIGN.md, rng).
#pragma once

#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace fedverify::estimators {

// What a stream is used for; part of the key so that different uses never share numbers.
enum class Purpose : std::uint64_t {
  problem_generator = 1,
  gradient_noise = 2,      // additive Gaussian noise / minibatch indices in local steps
  initial_state = 3,
  projections = 4,         // sliced Wasserstein directions
  second_run = 5,          // FedRR's run at 2γ when its noise is independent
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
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(bits()) * n) >> 64);
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

}  // namespace fedverify::estimators
