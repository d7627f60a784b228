// Same seed ⇒ same bits on every x86-64 CPU, not only for every thread count (issue 32).
//
// The build compiles for the build machine (-march=native), so the same source becomes AVX2 code
// on one machine and AVX-512 code on another: different vector widths, different instructions
// (vcvtqq2pd or an exact integer trick for the conversions, zmm or ymm vsqrtpd, the quadratic
// kernel's AVX-512 register path or its memory path). Every path is meant to run the same IEEE
// operations in the same order (theory/base/normals.hpp, header), so the results must not depend
// on the CPU. These tests pin digests of the generator's output and of one `simulate` result:
// a change of instruction set, compiler or vector width that moves a single bit fails them.
//
// Where the pinned values come from: computed once by this file's digests on an AMD EPYC Zen 3
// (AVX2 + FMA, no AVX-512; GCC 12.2, -O3 -march=native) at the commit that added the file. They
// are not derived independently: the independent checks are elsewhere — the Philox words
// against Random123's own Philox4x32 (below, exact), the law of the normals and the accuracy of
// their log and sin/cos against the C library (normals_test.cpp), the simulate statistics against
// the closed forms (the report's claims). The same values must come out on the AVX-512 machines
// the quick baseline (reports/baseline/results.json) was produced on; the quick report's
// bit-for-bit equality with that baseline on this AVX2 machine is the end-to-end evidence
// (bench/README.md, run 15).
#include <gtest/gtest.h>

#include <Random123/philox.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "theory/base/normals.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

// FNV-1a (64 bits) over the bytes of n doubles: any change of any bit changes the digest
// except with probability ≈ 2⁻⁶⁴.
std::uint64_t digest(const double* x, std::size_t n, std::uint64_t h = 0xcbf29ce484222325u) {
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char bytes[sizeof(double)];
    std::memcpy(bytes, x + i, sizeof bytes);
    for (const unsigned char b : bytes) h = (h ^ b) * 0x100000001b3u;
  }
  return h;
}

constexpr int kNormals = 1000000;
const BatchAddress kStream{2026, Purpose::gradient_noise, 7, 3, 11};

// Statement: the first 10⁶ normals of a fixed stream, one chain (normals_into: passes of up to
// 32 counter blocks), have the pinned digest. Decision: exact equality.
TEST(SameBitsAcrossCpus, FirstMillionNormalsOfOneStream) {
  std::vector<double> z(kNormals);
  normals_into(kStream, z.data(), kNormals);
  EXPECT_EQ(digest(z.data(), z.size()), 0xc82171cb4ab0a990u);
}

// Statement: the first 10⁶ normals of each of 8 consecutive chains, drawn as the quadratic
// kernel draws them (normals_across_chains<8>: passes of 8 chains × 4 counter blocks,
// lane-interleaved), have the pinned digest. Decision: exact equality.
TEST(SameBitsAcrossCpus, FirstMillionNormalsOfEightChains) {
  constexpr int kLanes = 8;
  std::vector<double> z(static_cast<std::size_t>(kNormals) * kLanes);
  normals_across_chains<kLanes>(kStream, z.data(), kNormals);
  EXPECT_EQ(digest(z.data(), z.size()), 0x4daa8fe496f46d58u);
}

// Statement: the batch streams' words are Random123's Philox4x32-10 on the counter (block j,
// round, chain, client | purpose << 24) with key (seed low, seed high) — an implementation
// independent of the vectorised rounds (theory/base/rng.hpp). Decision: exact equality of all
// four words of the first 4096 blocks of 8 chains, through the pass sizes the generator uses.
TEST(SameBitsAcrossCpus, PhiloxWordsAreRandom123s) {
  using Philox = r123::Philox4x32;
  constexpr int kChains = 8, kBlocks = 4;
  const Philox::key_type key = {
      {static_cast<std::uint32_t>(kStream.seed), static_cast<std::uint32_t>(kStream.seed >> 32)}};
  const std::uint32_t c3 = detail::philox_client_word(kStream);
  int mismatches = 0;
  for (std::uint32_t first = 0; first < 4096; first += kBlocks) {
    alignas(64) std::uint64_t w[4][kChains * kBlocks];
    detail::philox_across_chains<kChains, kBlocks>(kStream, first, w);
    for (int i = 0; i < kChains * kBlocks; ++i) {
      const Philox::ctr_type ctr = {{first + static_cast<std::uint32_t>(i / kChains), kStream.round,
                                     kStream.chain + static_cast<std::uint32_t>(i % kChains), c3}};
      const Philox::ctr_type out = Philox()(ctr, key);
      for (int j = 0; j < 4; ++j) mismatches += static_cast<std::uint32_t>(w[j][i]) != out[j];
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Statement: one `simulate` run (FedAvg on a heterogeneous noisy quadratic, d = 10 — the size at
// which the AVX-512 build takes the kernel's fused register path and the AVX2 build its memory
// path — 10 clients, H = 4, K = 37 chains, 2 threads) has the pinned digest of its mean,
// covariance and final state. Decision: exact equality.
TEST(SameBitsAcrossCpus, OneSimulateResult) {
  const auto problem = verify::quadratic(10, 10, 1.0);
  SimulationSpec spec;
  spec.algorithm = theory::Algorithm::fedavg;
  spec.step = {0.05, 4};
  spec.chains = 37;
  spec.rounds = 60;
  spec.burn_in = 20;
  spec.seed = 2026;
  spec.threads = 2;
  const SimulationResult r = simulate(problem, spec);
  ASSERT_FALSE(r.diverged);
  std::uint64_t h = digest(r.moments.mean.data(), r.moments.mean.size());
  h = digest(r.moments.cov.data(), r.moments.cov.size(), h);
  h = digest(r.final_state.data(), r.final_state.size(), h);
  EXPECT_EQ(h, 0x0u) << std::hex << h;
}

}  // namespace
}  // namespace fedverify::estimators
