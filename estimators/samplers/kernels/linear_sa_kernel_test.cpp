// The linear-sa kernel (kernels/linear_sa.hpp) against a scalar reference written from the
// problem's stored samples: per lane and step, g = (1/B) Σ_b (A_{k_b} y − b_{k_b}) (+ λy for least
// squares) and y ← y − γg, with the draws the kernel itself made (KernelWorkspace::indices).
// Rank-one clients (TD(0), least squares) run the 8-lane gathered path, others the dense per-lane
// one; both must follow the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "estimators/samplers/kernels/linear_sa.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/diabetes_data.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify::estimators {
namespace {

// The reference step of one lane (dense A_k, or the least-squares form a(aᵀy − y_k) + λy).
Vector reference_steps(const theory::LinearSaProblem& p, int c, const std::vector<std::uint32_t>& k,
                       int lane, Vector y, double gamma, int steps) {
  const int batch = p.batch_size();
  for (int h = 0; h < steps; ++h) {
    Vector g = Vector::Zero(p.dim());
    for (int b = 0; b < batch; ++b) {
      const auto j = static_cast<Eigen::Index>(
          k[(static_cast<std::size_t>(h) * batch + b) * kLanes + static_cast<std::size_t>(lane)]);
      if (p.least_squares()) {
        const Vector a = p.ls_client(c).features.row(j).transpose();
        g += a * (a.dot(y) - p.ls_client(c).targets(j));
      } else {
        const auto& s = p.client(c).samples[static_cast<std::size_t>(j)];
        g += s.a * y - s.b;
      }
    }
    g /= batch;
    if (p.least_squares()) g += p.l2() * y;
    y -= gamma * g;
  }
  return y;
}

struct Case {
  std::string name;
  std::unique_ptr<theory::Problem> problem;
  bool rank_one = true;  // every client takes the gathered path
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"td-garnet", theory::parse_problem(theory::garnet_td_preset(), "td-garnet")});
  theory::GarnetOptions small = theory::garnet_td_preset_options();
  small.states = 10;
  small.features = 3;
  small.clients = 4;
  small.batch_size = 3;
  // d = 3 is below the factored rank rule (max_factor_rank(3) = 0): the per-lane path.
  out.push_back(
      {"td small, B = 3", theory::parse_problem(theory::garnet_td_json(small), "small"), false});
  out.push_back({"ls-diabetes", theory::parse_problem(theory::diabetes_preset(), "diabetes")});
  // Dense non-symmetric samples (full rank: the per-lane path, d = 10 = a panel of 8 and a tail)
  // and least squares with λ > 0 and B = 2.
  out.push_back({"dense d = 10, B = 2",
                 std::make_unique<theory::LinearSaProblem>(verify::dense_problem(10, 3, 7, 2, 5)),
                 false});
  out.push_back(
      {"least squares λ = 0.3, B = 2", std::make_unique<theory::LinearSaProblem>(
                                           verify::least_squares_problem(4, 3, 9, 2, 0.3, 6))});
  return out;
}

// Statement: H steps of every client on a block of 8 chains follow the reference with the
// kernel's own draws. Tolerance (round-off, not fitted): each step sums the same B·(2d + 1) terms
// of size ≤ s = (1 + max_k ‖A_k‖_max + max_k |b_k|)·max(1, ‖y‖∞) in other orders (the gathered path
// forms u(vᵀy), the reference A y, whose entries are the products u_i v_j rounded once: factors
// are exact to kRankUlps·d·ε relative), so |Δ| ≤ 4·H·B·(2d + 1)·d·ε·γ·s per step summed over H
// steps; the contraction of the steps keeps earlier errors from growing.
TEST(LinearSaKernel, FollowsTheReferenceWithItsOwnDraws) {
  constexpr int kSteps = 4;
  constexpr double kGammaL = 0.3;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto& p = dynamic_cast<const theory::LinearSaProblem&>(*c.problem);
    const int d = p.dim();
    const double gamma = kGammaL / p.smoothness();
    const auto sampler = make_linear_sa_sampler(p);
    for (int client = 0; client < p.num_clients(); ++client) {
      ASSERT_EQ(p.least_squares() || p.factored(client), c.rank_one) << "client " << client;
      std::vector<double> y(static_cast<std::size_t>(d) * kLanes);
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(0.37 * static_cast<double>(i));
      const std::vector<double> start = y;
      KernelWorkspace ws;
      sampler->local_steps(
          client,
          BatchAddress{2026, Purpose::gradient_noise, 8, static_cast<std::uint32_t>(client), 5},
          kLanes, gamma, kSteps, y.data(), nullptr, ws);
      double size = 1.0;
      if (p.least_squares()) {
        size += p.ls_client(client).features.cwiseAbs().maxCoeff() *
                    p.ls_client(client).features.cwiseAbs().maxCoeff() +
                p.ls_client(client).targets.cwiseAbs().maxCoeff() + p.l2();
      } else {
        for (const auto& s : p.client(client).samples) {
          size = std::max(size, 1.0 + s.a.cwiseAbs().maxCoeff() + s.b.cwiseAbs().maxCoeff());
        }
      }
      const double tolerance =
          4.0 * kSteps * p.batch_size() * (2 * d + 1) * d * verify::kEps * gamma * size;
      for (int lane = 0; lane < kLanes; ++lane) {
        Vector y0(d), got(d);
        for (int i = 0; i < d; ++i) {
          y0(i) = start[static_cast<std::size_t>(i) * kLanes + lane];
          got(i) = y[static_cast<std::size_t>(i) * kLanes + lane];
        }
        const Vector expected = reference_steps(p, client, ws.indices, lane, y0, gamma, kSteps);
        EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), tolerance)
            << "client " << client << ", lane " << lane;
        EXPECT_GT((got - y0).cwiseAbs().maxCoeff(), 100 * tolerance);  // the steps moved y
      }
    }
  }
}

// Reshuffled draws (THEORY (A4)): every pass of every lane is a permutation of the client's n
// samples and a round ending inside a pass takes distinct samples; the draws are the stream's (the
// same address gives the same draws, another round others); and the kernel follows the reference
// with them. Uniformity: over 4000 rounds × 8 lanes the sample at a pass's first position is
// uniform on n = 6 by a χ² test (5 degrees of freedom) at α = 1e-4, and so is the last.
TEST(LinearSaKernel, ReshuffledPassesArePermutations) {
  theory::LinearSaProblem p = verify::least_squares_problem(3, 2, 6, 2, 0.1, 21);
  p.set_sample_order(theory::SampleOrder::reshuffled);
  const int n = 6, batch = 2, steps = 7;  // 7 steps of 2: two passes of 3 steps, then one step
  const auto sampler = make_linear_sa_sampler(p);
  const double gamma = 0.1 / p.smoothness();
  const auto run = [&](std::uint32_t round, std::vector<std::uint32_t>& draws) {
    std::vector<double> y(static_cast<std::size_t>(p.dim()) * kLanes, 0.5);
    const std::vector<double> y0 = y;
    KernelWorkspace ws;
    sampler->local_steps(0, BatchAddress{2026, Purpose::gradient_noise, 16, 0, round}, kLanes,
                         gamma, steps, y.data(), nullptr, ws);
    draws = ws.indices;
    return std::pair{y0, y};
  };
  std::vector<std::uint32_t> k, again, other;
  const auto [y0, y] = run(3, k);
  run(3, again);
  run(4, other);
  EXPECT_EQ(k, again);
  EXPECT_NE(k, other);
  ASSERT_EQ(k.size(), static_cast<std::size_t>(steps * batch) * kLanes);
  for (int lane = 0; lane < kLanes; ++lane) {
    std::vector<std::uint32_t> pass;
    for (int i = 0; i < steps * batch; ++i) {
      pass.push_back(k[static_cast<std::size_t>(i) * kLanes + lane]);
      if (static_cast<int>(pass.size()) == n || i == steps * batch - 1) {
        std::vector<std::uint32_t> sorted = pass;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << lane;
        EXPECT_LT(sorted.back(), static_cast<std::uint32_t>(n));
        if (pass.size() == static_cast<std::size_t>(n)) {
          EXPECT_EQ(sorted.front(), 0U);
        }
        pass.clear();
      }
    }
    Vector start(p.dim()), got(p.dim());
    for (int i = 0; i < p.dim(); ++i) {
      start(i) = y0[static_cast<std::size_t>(i) * kLanes + lane];
      got(i) = y[static_cast<std::size_t>(i) * kLanes + lane];
    }
    EXPECT_LE((got - reference_steps(p, 0, k, lane, start, gamma, steps)).norm(), 1e-13);
  }
  std::vector<double> first(n, 0.0), last(n, 0.0);
  constexpr int kRounds = 4000;
  for (std::uint32_t round = 0; round < kRounds; ++round) {
    std::vector<std::uint32_t> draws;
    run(round, draws);
    for (int lane = 0; lane < kLanes; ++lane) {
      first[draws[lane]] += 1;
      last[draws[static_cast<std::size_t>(n - 1) * kLanes + lane]] += 1;
    }
  }
  const double expected = kRounds * kLanes / static_cast<double>(n);
  // χ²₅ quantile at 1 − 1e-4: 25.74.
  for (const auto* counts : {&first, &last}) {
    double chi2 = 0;
    for (const double c : *counts) chi2 += (c - expected) * (c - expected) / expected;
    EXPECT_LT(chi2, 25.74);
  }
}

}  // namespace
}  // namespace fedverify::estimators
