// Cost of the exact engine (theory/closed_forms/exact.hpp): stationary moments of FedAvg (a d×d
// Lyapunov equation, THEORY F5) and of Scaffold (the stacked state (x, ξ_1, …, ξ_N), THEORY S6),
// against d and N; and the 50 × 50 validity-map workload of verify/claims/maps/ on a d = 10,
// N = 10 problem (spectral radii and exact moments of both algorithms over the grid, in parallel
// as the map claims run them). See bench/README.md ("Exact engine").
//
//   build/exact_bench --benchmark_min_time=1
//
// Problems: theory::generate_quadratic (heterogeneous Hessians of condition 10, random noise
// covariances), γ = 0.1/L and H = 5 unless stated; one call per iteration, real time.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "theory/algorithms/scaffold_structured.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/generators.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/maps/common.hpp"

namespace {

namespace theory = fedverify::theory;
namespace maps = fedverify::claims::maps;
using theory::Algorithm;

theory::QuadraticProblem problem(int d, int n) {
  return theory::generate_quadratic(
      {.dim = d, .clients = n, .condition = 10.0, .hessian_spread = 1.0, .seed = 1});
}

theory::RunSetting step(const theory::QuadraticProblem& q) { return {0.1 / q.smoothness(), 5}; }

void fedavg_exact(benchmark::State& state) {
  const auto q = problem(static_cast<int>(state.range(0)), 10);
  for (auto _ : state) {
    benchmark::DoNotOptimize(theory::fedavg_exact(q, step(q)).cov.data());
  }
}

void scaffold_exact(benchmark::State& state) {
  const auto q = problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  state.counters["s"] = static_cast<double>(q.dim()) * (q.num_clients() + 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(theory::scaffold_exact(q, step(q)).cov.data());
  }
}

// The two solves behind scaffold_exact (THEORY S6 dense, S6a structured), for the crossover.
void scaffold_dense(benchmark::State& state) {
  const auto q = problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(theory::scaffold_exact_dense(q, step(q)).cov.data());
  }
}

void scaffold_structured(benchmark::State& state) {
  const auto q = problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(theory::scaffold_exact_structured(q, step(q)).cov.data());
  }
}

void scaffold_radius(benchmark::State& state) {
  const auto q = problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(theory::scaffold_spectral_radius(q, step(q)));
}

// The workload of the disabled test MapPerformance.FiftyByFiftyOnDTenNTen it replaces: for each
// algorithm, the spectral radius at 2500 grid points (γL log-spaced in [1e-3, 1], H in [1, 100]),
// then the exact moments at the same points (a point without a stationary law counts as done).
void map_50x50(benchmark::State& state) {
  const Algorithm algorithm = state.range(0) == 0 ? Algorithm::fedavg : Algorithm::scaffold;
  const bool moments = state.range(1) != 0;
  const auto q = problem(10, 10);
  const auto gamma_l = maps::log_grid(1e-3, 1.0, 50);
  std::vector<int> hs;
  for (double h : maps::log_grid(1.0, 100.0, 50)) hs.push_back(static_cast<int>(h));
  const std::size_t points = gamma_l.size() * hs.size();
  const fedverify::claims::Context ctx;
  std::vector<double> out(points);
  const auto at = [&](std::size_t i) {
    return theory::RunSetting{gamma_l[i % gamma_l.size()] / q.smoothness(), hs[i / gamma_l.size()]};
  };
  for (auto _ : state) {
    fedverify::claims::kit::for_each_task(ctx, points, [&](std::size_t i) {
      if (!moments) {
        out[i] = maps::round_radius(q, algorithm, at(i));
        return;
      }
      try {
        out[i] = theory::exact_moments(q, algorithm, at(i)).cov.trace();
      } catch (const fedverify::InputError&) {
        out[i] = 0;
      }
    });
    benchmark::DoNotOptimize(out.data());
  }
}

BENCHMARK(fedavg_exact)
    ->ArgNames({"d"})
    ->Arg(10)
    ->Arg(50)
    ->Arg(100)
    ->Arg(300)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// The (d, N) of the Scaffold sweep up to a size s = d(N+1): s from 105 to 2505.
void scaffold_sizes(benchmark::internal::Benchmark* b, int max_size) {
  b->ArgNames({"d", "N"});
  const int sizes[][2] = {{10, 10}, {5, 20}, {5, 50}, {5, 100}, {10, 50}, {5, 200}, {5, 500}};
  for (const auto& [d, n] : sizes) {
    if (d * (n + 1) <= max_size) b->Args({d, n});
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}
void all_sizes(benchmark::internal::Benchmark* b) { scaffold_sizes(b, 1 << 30); }
// The dense solve is O(s³): up to s = 1005 (≈ 1–2 s).
void dense_sizes(benchmark::internal::Benchmark* b) { scaffold_sizes(b, 1005); }

BENCHMARK(scaffold_exact)->Apply(all_sizes);
BENCHMARK(scaffold_dense)->Apply(dense_sizes);
BENCHMARK(scaffold_structured)->Apply(all_sizes);
BENCHMARK(scaffold_radius)
    ->ArgNames({"d", "N"})
    ->Args({10, 10})
    ->Args({5, 100})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(map_50x50)
    ->ArgNames({"scaffold", "moments"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
