// The linear-sa kernel (kernels/linear_sa.hpp) against a scalar reference written from the
// problem's stored samples: per lane and step, g = (1/B) Σ_b (A_{k_b} y − b_{k_b}) (+ λy for least
// squares) and y ← y − γg, with the draws the kernel itself made (KernelWorkspace::indices).
// Rank-one clients (TD(0), least squares) run the 8-lane gathered path, others the dense per-lane
// one; both must follow the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
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

}  // namespace
}  // namespace fedverify::estimators
