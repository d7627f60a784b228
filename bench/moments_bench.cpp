// Cost of the stationary-moments accumulator (estimators/statistics/moments.hpp) per recorded
// round, and of its scatter update written as fixed-order sums (ordered_sums.hpp) against the
// Eigen SYRK it replaced, whose order of additions depends on the vector width.
//
//   build/moments_bench --benchmark_min_time=0.5
//
// Arguments: d (dimension), K (chains). Counter `entries`: lower-triangle entries × chains
// updated per second (d(d + 1)/2 · K per call).
#include <benchmark/benchmark.h>

#include <random>

#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/ordered_sums.hpp"

namespace {

using fedverify::Matrix;
using namespace fedverify::estimators;

Matrix normal_matrix(Eigen::Index rows, Eigen::Index cols) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal;
  Matrix m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = normal(rng);
  }
  return m;
}

void set_counters(benchmark::State& state) {
  const double d = static_cast<double>(state.range(0));
  state.counters["entries"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * d * (d + 1) / 2 *
                             static_cast<double>(state.range(1)),
                         benchmark::Counter::kIsRate);
}

void scatter_ordered(benchmark::State& state) {
  const Matrix c = normal_matrix(state.range(0), state.range(1));
  Matrix s = Matrix::Zero(c.rows(), c.rows());
  for (auto _ : state) {
    add_ordered_lower_products(c, s);
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  }
  set_counters(state);
}

void scatter_eigen_syrk(benchmark::State& state) {
  const Matrix c = normal_matrix(state.range(0), state.range(1));
  Matrix s = Matrix::Zero(c.rows(), c.rows());
  for (auto _ : state) {
    s.selfadjointView<Eigen::Lower>().rankUpdate(c);
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  }
  set_counters(state);
}

// One recorded round of the whole accumulator (mean and scatter, batch sums and their products
// when d ≤ 24, split-R̂'s per-chain accumulators).
void accumulator_add(benchmark::State& state) {
  const Matrix c = normal_matrix(state.range(0), state.range(1));
  constexpr int kRounds = 1 << 20;
  StationaryMomentsAccumulator acc(static_cast<int>(c.rows()), static_cast<int>(c.cols()), kRounds);
  for (auto _ : state) acc.add(c);
  set_counters(state);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (const int d : {10, 24, 50, 100}) {
    for (const int k : {64, 1024}) b->Args({d, k});
  }
}

BENCHMARK(scatter_ordered)->Apply(sizes);
BENCHMARK(scatter_eigen_syrk)->Apply(sizes);
BENCHMARK(accumulator_add)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
