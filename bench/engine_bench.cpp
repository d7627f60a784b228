// Throughput of the samplers (estimators/chains) in chain-steps per second: one chain-step is
// one local stochastic-gradient step of one client in one chain. Compare with
// bench/numpy_reference.py (same problems, sizes and step counts); see bench/README.md.
//
//   build-b/engine_bench --benchmark_min_time=1
//
// Counters: chain_steps (per second), and for quadratics GFLOPs, the achieved rate of the
// gradient kernel counting 4d² + 3d flops per chain-step (A_c y and R_c z are d×d mat-vecs at
// 2d² flops each; the step y − γ(g) and the −A_c b_c offset add 3d).
#include <benchmark/benchmark.h>

#include <vector>

#include "estimators/chains.hpp"
#include "theory/logistic_problem.hpp"
#include "theory/quadratic_problem.hpp"

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
  run(state, d == 10 ? q10 : q100, 4.0 * d * d + 3.0 * d);
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

}  // namespace

BENCHMARK_MAIN();
