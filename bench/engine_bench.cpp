// Throughput of the samplers (estimators/samplers) in chain-steps per second: one chain-step is
// one local stochastic-gradient step of one client in one chain. Compare with
// bench/numpy_reference.py (same problems, sizes and step counts); see bench/README.md.
//
//   build/engine_bench --benchmark_min_time=1
//
// Counters: chain_steps (per second), and for quadratics GFLOPs, the achieved rate of the
// gradient kernel counting the flops it executes per chain-step: 2d² for A_c y, d(d + 1) for
// R_c z (R_c is triangular up to a row permutation), 3d for the step y − γ(g) and the −A_c b_c
// offset. (Before the triangular factor, 4d² + 3d: two dense mat-vecs.)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "bench/ziggurat_normals.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "theory/base/normals.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace {

using fedverify::Matrix;
using fedverify::Vector;
using namespace fedverify::estimators;

constexpr int kClients = 10;
constexpr int kLocalSteps = 10;
constexpr double kGamma = 0.01;

Matrix normal_matrix(Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  return m;
}

fedverify::theory::QuadraticProblem quadratic(int d) {
  Stream s(1, Purpose::test);
  std::vector<fedverify::theory::QuadraticClient> clients;
  for (int c = 0; c < kClients; ++c) {
    const Eigen::HouseholderQR<Matrix> qr(normal_matrix(s, d, d));
    const Matrix q = qr.householderQ();
    Vector spectrum(d);
    for (int i = 0; i < d; ++i) spectrum(i) = 0.5 + 1.5 * s.uniform();
    const Matrix g = normal_matrix(s, d, d);
    clients.push_back({fedverify::symmetric_part(q * spectrum.asDiagonal() * q.transpose()),
                       normal_matrix(s, d, 1).col(0),
                       fedverify::symmetric_part(g * g.transpose() / d)});
  }
  return fedverify::theory::QuadraticProblem(std::move(clients));
}

// 50 samples per client, labels from a noisy linear rule; λ = 0.1, batch 1.
fedverify::theory::LogisticProblem logistic(int d) {
  Stream s(2, Purpose::test);
  std::vector<fedverify::theory::LogisticClient> clients;
  for (int c = 0; c < kClients; ++c) {
    const Matrix f = normal_matrix(s, 50, d);
    const Vector w = normal_matrix(s, d, 1).col(0);
    Vector y(50);
    for (int j = 0; j < 50; ++j) y(j) = f.row(j).dot(w) + 0.5 * s.normal() > 0 ? 1.0 : -1.0;
    clients.push_back({f, y});
  }
  return fedverify::theory::LogisticProblem(std::move(clients), 0.1, 1);
}

void run(benchmark::State& state, const fedverify::theory::Problem& problem, double flops) {
  const int chains = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  SamplerOptions options;
  options.step = {kGamma, kLocalSteps};
  ChainEnsemble ensemble(problem, options, Vector::Zero(problem.dim()), chains);
  for (auto _ : state) {
    ensemble.advance(threads);
    benchmark::DoNotOptimize(ensemble.state().data());
  }
  const double steps = static_cast<double>(ensemble.chain_steps());
  state.counters["chain_steps"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
  if (flops > 0) {
    state.counters["GFLOPs"] =
        benchmark::Counter(steps * flops * 1e-9, benchmark::Counter::kIsRate);
  }
}

void quadratic_fedavg(benchmark::State& state) {
  const int d = static_cast<int>(state.range(2));
  static const auto q10 = quadratic(10);
  static const auto q100 = quadratic(100);
  run(state, d == 10 ? q10 : q100, 2.0 * d * d + d * (d + 1.0) + 3.0 * d);
}

void logistic_fedavg(benchmark::State& state) {
  static const auto lg = logistic(10);
  run(state, lg, 0);
}

BENCHMARK(quadratic_fedavg)
    ->ArgNames({"K", "threads", "d"})
    ->ArgsProduct({{1, 256, 4096}, {1, 2}, {10, 100}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(logistic_fedavg)
    ->ArgNames({"K", "threads"})
    ->ArgsProduct({{4096}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// --- Components of the logistic kernel (per chain-step, block of 8 chains, d = 10) ---------------
// Each runs the component alone at its throughput (independent blocks); the sampler itself is
// latency-bound inside a block (step h + 1 needs y from step h), so the components do not add up
// to the sampler's time. Counter "ns_per_chain_step" is the cost of one chain-step's share.

constexpr int kDim = 10;
constexpr int kRows = 50;
namespace simd = fedverify::estimators::simd;

std::vector<double> signed_rows() {
  Stream s(5, Purpose::test);
  std::vector<double> t(kRows * kDim + simd::kRowPadding, 0.0);
  for (int i = 0; i < kRows * kDim; ++i) t[i] = s.normal() / 3;
  return t;
}

std::vector<std::uint32_t> row_offsets(int count) {
  Stream s(6, Purpose::test);
  std::vector<std::uint32_t> o(count);
  for (auto& v : o) v = static_cast<std::uint32_t>(s.below(kRows) * kDim);
  return o;
}

void per_chain_step(benchmark::State& state, double chain_steps_per_iteration) {
  state.counters["ns_per_chain_step"] =
      benchmark::Counter(chain_steps_per_iteration * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// CPU clock: a chain of dependent scalar FMAs (latency 4 cycles on Zen 4 and Zen 5) gives the
// core frequency, to convert the other components' nanoseconds into cycles.
void component_cpu_clock(benchmark::State& state) {
  constexpr int kChain = 1 << 16;
  double x = 1.0;
  const double a = 0.999999, b = 1e-6;
  for (auto _ : state) {
    for (int i = 0; i < kChain; ++i) {
      x = std::fma(x, a, b);
      asm volatile("" : "+x"(x));  // keep x in a register, the fma in the loop
    }
  }
  benchmark::DoNotOptimize(x);
  state.counters["GHz_if_fma_latency_4"] = benchmark::Counter(
      4.0 * kChain * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

// Minibatch indices for H = 10 steps of 8 chains (one client, one round) and their row offsets.
void component_indices(benchmark::State& state) {
  std::uint32_t out[10 * 8];
  BatchAddress a{1, Purpose::gradient_noise, 0, 3, 7};
  for (auto _ : state) {
    a.chain += 8;
    indices_across_chains<8>(a, kRows, out, 10);
    for (auto& o : out) o *= kDim;
    benchmark::DoNotOptimize(out);
  }
  per_chain_step(state, 80);
}

// The sampled rows of 8 chains (d = 10) transposed into lanes: 8 independent fetches per loop.
void component_row_fetch(benchmark::State& state) {
  const auto table = signed_rows();
  const auto offsets = row_offsets(8 * 64);
  for (auto _ : state) {
    simd::Pack sum = simd::broadcast(0.0);
    for (int i = 0; i < 64; ++i) {
      simd::Pack rows[kDim];  // what the kernel does: 4 + 4 columns, then a 2-column tail
      simd::detail::fetch_rows(std::integral_constant<int, kDim>{}, table.data(),
                               offsets.data() + 8 * i, rows);
      for (const simd::Pack& r : rows) sum = sum + r;
    }
    benchmark::DoNotOptimize(sum);
  }
  per_chain_step(state, 8 * 64);
}

// The weight γ/(1 + e^s) (exp, reciprocal) on 8 lanes, 8 independent packs per loop.
void component_weight(benchmark::State& state) {
  simd::Pack s[8];
  for (int j = 0; j < 8; ++j) s[j] = simd::broadcast(-3.0 + 0.7 * j);
  for (auto _ : state) {
    for (auto& v : s) v = simd::logistic_weight(v, 0.01) + simd::broadcast(-0.5);
    benchmark::DoNotOptimize(s);
  }
  per_chain_step(state, 64);
}

// The kernel's view of one block: H = 10 steps, d = 10, batch 1.
simd::LogisticBlock kernel_block(const std::vector<double>& table,
                                 const std::vector<std::uint32_t>& offsets) {
  simd::LogisticBlock block;
  block.table = table.data();
  block.offsets = offsets.data();
  block.dim = kDim;
  block.steps = 10;
  block.gamma = kGamma;
  block.l2 = 0.1;
  return block;
}

// The whole kernel on one block (H = 10 steps, d = 10) without index generation: at its latency
// (what the sampler runs for the last client when N is odd).
void component_kernel(benchmark::State& state) {
  const auto table = signed_rows();
  const auto offsets = row_offsets(8 * 10);
  std::vector<double> y(kDim * 8, 0.1);
  const simd::LogisticBlock block = kernel_block(table, offsets);
  for (auto _ : state) {
    simd::logistic_local_steps(block, y.data(), nullptr);
    benchmark::DoNotOptimize(y.data());
  }
  per_chain_step(state, 80);
}

// The weight's latency: each call waits for the previous one (as the kernel's steps do).
void component_weight_latency(benchmark::State& state) {
  simd::Pack s = simd::broadcast(-3.0);
  for (auto _ : state) {
    for (int i = 0; i < 8; ++i) s = simd::logistic_weight(s, 0.01) + simd::broadcast(-0.5);
    benchmark::DoNotOptimize(s);
  }
  per_chain_step(state, 8 * 8);
}

// Two clients of the same block interleaved (logistic_local_steps_pair), as the sampler runs
// clients 2i and 2i + 1: one block's weight latency overlaps the other's work.
void component_kernel_client_pair(benchmark::State& state) {
  const auto table = signed_rows();
  const auto offsets = row_offsets(8 * 10);
  const auto offsets_next = row_offsets(8 * 20);
  std::vector<double> y(2 * kDim * 8, 0.1);
  const simd::LogisticBlock first = kernel_block(table, offsets);
  const simd::LogisticBlock second = kernel_block(table, offsets_next);
  for (auto _ : state) {
    simd::logistic_local_steps_pair(first, y.data(), nullptr, second, y.data() + kDim * 8, nullptr);
    benchmark::DoNotOptimize(y.data());
  }
  per_chain_step(state, 2 * 80);
}

// The arithmetic of a step besides the weight and the row fetch (u = (1 − γλ)y, y ← u + c ã,
// the next dot product ãₕ₊₁ᵀy) for d = 10, on 2 independent blocks: its throughput.
void component_dot_update(benchmark::State& state) {
  constexpr int kBlocks = 2;
  simd::Pack y[kBlocks][kDim], a[kDim], next[kDim];
  for (int k = 0; k < kDim; ++k) {
    a[k] = simd::broadcast(0.1 * k);
    next[k] = simd::broadcast(0.2 - 0.01 * k);
    for (auto& yj : y) yj[k] = simd::broadcast(0.3);
  }
  const simd::Pack rho = simd::broadcast(0.999), c = simd::broadcast(0.001);
  simd::Pack s = simd::broadcast(0.0);
  for (auto _ : state) {
    for (auto& yj : y) {
      for (int k = 0; k < kDim; ++k) yj[k] = simd::fma(c, a[k], rho * yj[k]);
      s = s + simd::detail::dot(std::integral_constant<int, kDim>{}, next, yj);
    }
    benchmark::DoNotOptimize(s);
  }
  benchmark::DoNotOptimize(y);
  per_chain_step(state, 8 * kBlocks);
}

// --- The normal generator: the 100 normals (H = 10 steps × d = 10) of 8 chains of one client ----
// and round, as the quadratic kernel draws them. Counter ns_per_chain_step: here ns per normal.

// FMA peak of one core: 16 independent chains of FMAs on the widest vector register the build
// targets (zmm: _mm512_fmadd_pd, 8 doubles, the same instructions as simd::fma; ymm on AVX2 + FMA:
// 4 doubles — simd::Pack's portable loops compiled to stack-bound code there, 7 GFLOP/s against
// 28 on the same AMD EPYC Zen 3, bench/README.md run 15). Counter GFLOPs = 2 flops × lanes ×
// FMAs per CPU second.
#if defined(__AVX512F__)
using PeakVector = __m512d;
constexpr int kPeakLanes = 8;
inline PeakVector peak_broadcast(double x) { return _mm512_set1_pd(x); }
inline PeakVector peak_fma(PeakVector a, PeakVector b, PeakVector c) {
  return _mm512_fmadd_pd(a, b, c);
}
#elif defined(__AVX2__) && defined(__FMA__)
using PeakVector = __m256d;
constexpr int kPeakLanes = 4;
inline PeakVector peak_broadcast(double x) { return _mm256_set1_pd(x); }
inline PeakVector peak_fma(PeakVector a, PeakVector b, PeakVector c) {
  return _mm256_fmadd_pd(a, b, c);
}
#else
using PeakVector = double;
constexpr int kPeakLanes = 1;
inline PeakVector peak_broadcast(double x) { return x; }
inline PeakVector peak_fma(PeakVector a, PeakVector b, PeakVector c) { return std::fma(a, b, c); }
#endif

void component_fma_peak(benchmark::State& state) {
  constexpr int kChains = 16;
  constexpr int kRepeats = 1 << 12;
  PeakVector acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = peak_broadcast(0.1 * j);
  const PeakVector a = peak_broadcast(0.999999), b = peak_broadcast(1e-7);
  for (auto _ : state) {
    for (int r = 0; r < kRepeats; ++r) {
#pragma GCC unroll 16
      for (auto& v : acc) v = peak_fma(v, a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  state.counters["GFLOPs"] = benchmark::Counter(
      2.0 * kPeakLanes * kChains * kRepeats * static_cast<double>(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
}

constexpr int kNormals = 100;

// Box–Muller (theory/base/normals.hpp): the 8 chains in one vectorised pass, lane-interleaved.
void component_normals_box_muller(benchmark::State& state) {
  alignas(64) double out[kNormals * 8];
  BatchAddress a{1, Purpose::gradient_noise, 0, 3, 7};
  for (auto _ : state) {
    a.chain += 8;
    normals_across_chains<8>(a, out, kNormals);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  per_chain_step(state, kNormals * 8);
}

// The previous generator (bench/ziggurat_normals.hpp, 256-layer ziggurat): one chain at a time
// and scattered into lanes, as the previous kernel drew them.
void component_normals_ziggurat(benchmark::State& state) {
  alignas(64) double out[kNormals * 8];
  double draws[kNormals];
  BatchAddress a{1, Purpose::gradient_noise, 0, 3, 7};
  for (auto _ : state) {
    for (int lane = 0; lane < 8; ++lane) {
      a.chain += 1;
      fedverify::bench::ziggurat_normals_into(a, draws, kNormals);
      for (int j = 0; j < kNormals; ++j) out[j * 8 + lane] = draws[j];
    }
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  per_chain_step(state, kNormals * 8);
}

// The Philox4x32-10 words alone, one per Box–Muller normal: 25 counter blocks of 8 chains.
void component_normals_philox_only(benchmark::State& state) {
  alignas(64) std::uint64_t w[4][8 * 25];
  BatchAddress a{1, Purpose::gradient_noise, 0, 3, 7};
  for (auto _ : state) {
    a.chain += 8;
    fedverify::estimators::detail::philox_across_chains<8, 25>(a, 0, w);
    benchmark::DoNotOptimize(w);
    benchmark::ClobberMemory();
  }
  per_chain_step(state, kNormals * 8);
}

BENCHMARK(component_fma_peak);
BENCHMARK(component_normals_box_muller);
BENCHMARK(component_normals_ziggurat);
BENCHMARK(component_normals_philox_only);
BENCHMARK(component_cpu_clock);
BENCHMARK(component_indices);
BENCHMARK(component_row_fetch);
BENCHMARK(component_weight);
BENCHMARK(component_dot_update);
BENCHMARK(component_kernel);
BENCHMARK(component_weight_latency);
BENCHMARK(component_kernel_client_pair);

}  // namespace

BENCHMARK_MAIN();
