// Scaffold's structured linear-sa solve at the size d = 50, N = 20 (THEORY (L1)), where
// the dense reference takes minutes: the returned S must satisfy the stationarity equation
// S = M S Mᵀ + Q(S) in the stacked coordinates, with M (written from the local maps as
// scaffold_lsa.cpp's I − M) and Q(S) (lsa_client_round on the blocks of S, as the dense solve's
// noise) formed densely here, to 1e-10 relative; and at d = 20, N = 10 it must equal the dense
// solve to 1e-10. Least squares (real path) and federated TD on a Garnet MDP (complex path).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/algorithms/scaffold_lsa_stacked.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify {
namespace {

using theory::LinearSaProblem;

std::unique_ptr<theory::Problem> problem(int d, int n, bool td) {
  if (td) {
    theory::GarnetOptions o;
    o.states = 2 * d;
    o.features = d;
    o.clients = n;
    o.kernel_heterogeneity = 1.0;
    o.reward_heterogeneity = 1.0;
    return theory::parse_problem(theory::garnet_td_json(o), "garnet");
  }
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::vector<theory::LeastSquaresClient> clients(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    clients[c].features = Matrix(100, d);
    clients[c].targets = Vector(100);
    for (int j = 0; j < 100; ++j) {
      for (int i = 0; i < d; ++i) clients[c].features(j, i) = normal(rng) * (1.0 + 0.3 * c / n);
      clients[c].targets(j) = normal(rng) + 0.5 * c / n;
    }
  }
  return std::make_unique<LinearSaProblem>(std::move(clients), 0.1, 1);
}

// ‖S − M S Mᵀ − Q(S)‖ / ‖Q(S)‖ on Σ_c ξ_c = 0, with I − M and Q formed densely by the dense
// solve's builders (scaffold_lsa_stacked.hpp), in its Helmert coordinates.
double stationarity_residual(const LinearSaProblem& p, const theory::RunSetting& s,
                             const theory::ScaffoldExactMoments& m) {
  const int n = p.num_clients();
  const int d = p.dim();
  const theory::ScaffoldLsaStacked st = theory::scaffold_lsa_stacked(p, s);
  std::vector<Matrix> v;
  for (int c = 0; c < n; ++c) {
    const Eigen::Index rc = d * (1 + c);
    const Matrix cross = m.cov.block(0, rc, d, d);
    const Matrix xi_cov = m.cov.block(rc, rc, d, d);
    v.push_back(theory::lsa_client_round(p, c, s.gamma, s.local_steps, m.mean.head(d),
                                         m.cov.topLeftCorner(d, d), m.mean.segment(rc, d), &cross,
                                         &xi_cov)
                    .noise_over_gamma);
  }
  const Matrix q = theory::scaffold_lsa_round_noise(st, v, s);
  const Matrix& e = st.e_reduced;
  const Matrix cov = st.t.transpose() * m.cov * st.t;
  // S − MSMᵀ = ES + SEᵀ − ESEᵀ (no difference of two O(‖S‖) numbers).
  const Matrix es = e * cov;
  const Matrix lhs = es + es.transpose() - es * e.transpose();
  return (lhs - q).norm() / q.norm();
}

TEST(ScaffoldLsaStructuredSlow, FiftyByTwentySatisfiesTheStationarityEquation) {
  for (bool td : {false, true}) {
    const auto owned = problem(50, 20, td);
    const auto& p = dynamic_cast<const LinearSaProblem&>(*owned);
    const theory::RunSetting s{(td ? 0.2 : 0.05) / p.smoothness(), 3};
    const auto start = std::chrono::steady_clock::now();
    const auto m = theory::scaffold_exact_lsa(p, s);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double residual = stationarity_residual(p, s, m);
    fmt::print("{} d = 50, N = 20: {:.2f} s, relative residual {:.2e}, spectral radius {:.10f}\n",
               td ? "td" : "least squares", seconds, residual, m.spectral_radius);
    EXPECT_LE(residual, 1e-10) << td;
  }
}

TEST(ScaffoldLsaStructuredSlow, TwentyByTenEqualsTheDenseSolve) {
  for (bool td : {false, true}) {
    const auto owned = problem(20, 10, td);
    const auto& p = dynamic_cast<const LinearSaProblem&>(*owned);
    const theory::RunSetting s{(td ? 0.2 : 0.05) / p.smoothness(), 3};
    const auto structured = theory::scaffold_exact_lsa_structured(p, s);
    const auto dense = theory::scaffold_exact_lsa_dense(p, s);
    const double cov = (structured.cov - dense.cov).norm() / dense.cov.norm();
    const double mean = (structured.mean - dense.mean).norm() / dense.mean.norm();
    fmt::print("{} d = 20, N = 10: relative error mean {:.2e}, cov {:.2e}, radius {:.1e}\n",
               td ? "td" : "least squares", mean, cov,
               std::abs(structured.spectral_radius - dense.spectral_radius));
    EXPECT_LE(cov, 1e-10) << td;
    EXPECT_LE(mean, 1e-10) << td;
    EXPECT_LE(std::abs(structured.spectral_radius - dense.spectral_radius), 1e-8) << td;
  }
}

}  // namespace
}  // namespace fedverify
