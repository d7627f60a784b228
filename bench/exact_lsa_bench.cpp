// Cost of Scaffold's exact stationary moments on linear-sa problems (THEORY (L1)): the dense
// Stein solve in Helmert coordinates (scaffold_exact_lsa_dense, O((dN)³) per fixed-point
// iteration) against the structured solve (scaffold_exact_lsa_structured), and the dispatching
// scaffold_exact_lsa. See bench/README.md ("Exact engine, linear-sa").
//
//   build/exact_lsa_bench --benchmark_filter='lsa_(dense|structured)'
//
// Problems: least squares with Gaussian features (100 rows per client, scale 1 + 0.3c/N, λ = 0.1)
// and federated TD(0) on a Garnet MDP (2d states, gaussian features, ρ = 0.95, heterogeneity 1);
// γ = 0.05/L for least squares and γ = 0.2/L for TD, H = 3; one call per iteration, real time.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"

namespace {

namespace theory = fedverify::theory;

theory::LinearSaProblem least_squares(int d, int n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::vector<theory::LeastSquaresClient> clients(static_cast<std::size_t>(n));
  constexpr int kRows = 100;
  for (int c = 0; c < n; ++c) {
    clients[c].features = fedverify::Matrix(kRows, d);
    clients[c].targets = fedverify::Vector(kRows);
    for (int j = 0; j < kRows; ++j) {
      for (int i = 0; i < d; ++i) clients[c].features(j, i) = normal(rng) * (1.0 + 0.3 * c / n);
      clients[c].targets(j) = normal(rng) + 0.5 * c / n;
    }
  }
  return {std::move(clients), 0.1, 1};
}

std::unique_ptr<theory::Problem> garnet(int d, int n) {
  theory::GarnetOptions o;
  o.states = 2 * d;
  o.features = d;
  o.clients = n;
  o.kernel_heterogeneity = 1.0;
  o.reward_heterogeneity = 1.0;
  return theory::parse_problem(theory::garnet_td_json(o), "garnet");
}

// range(2): 0 least squares, 1 TD; range(3): 0 dense, 1 structured, 2 scaffold_exact_lsa.
void lsa(benchmark::State& state) {
  const int d = static_cast<int>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  std::unique_ptr<theory::Problem> owned;
  if (state.range(2) == 0) {
    owned = std::make_unique<theory::LinearSaProblem>(least_squares(d, n));
  } else {
    owned = garnet(d, n);
  }
  const auto& p = dynamic_cast<const theory::LinearSaProblem&>(*owned);
  const theory::RunSetting s{(state.range(2) == 0 ? 0.05 : 0.2) / p.smoothness(), 3};
  for (auto _ : state) {
    const auto m = state.range(3) == 0   ? theory::scaffold_exact_lsa_dense(p, s)
                   : state.range(3) == 1 ? theory::scaffold_exact_lsa_structured(p, s)
                                         : theory::scaffold_exact_lsa(p, s);
    benchmark::DoNotOptimize(m.cov.data());
  }
}

void sizes(benchmark::internal::Benchmark* b, int solve) {
  b->ArgNames({"d", "N", "td", "solve"});
  const int shapes[][2] = {{10, 10}, {20, 10}, {50, 10}, {50, 20}};
  for (int td : {0, 1}) {
    for (const auto& [d, n] : shapes) b->Args({d, n, td, solve});
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(1);
}

BENCHMARK(lsa)->Name("lsa_dense")->Apply([](auto* b) { sizes(b, 0); });
BENCHMARK(lsa)->Name("lsa_structured")->Apply([](auto* b) { sizes(b, 1); });
BENCHMARK(lsa)->Name("lsa_exact")->Apply([](auto* b) { sizes(b, 2); });

}  // namespace

BENCHMARK_MAIN();
