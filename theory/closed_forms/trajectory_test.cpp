// THEORY (T1), the exact finite-time law of x_t (trajectory.hpp), against computations that share
// none of its code:
//  - quadratics: the round maps built by literally running the local steps on a symbolic state
//    (testing/brute_force_chain.hpp), iterated round by round from (x0, 0, …, 0);
//  - linear-sa: the law of x_t by enumerating every draw of every local step of every client
//    (K^{N·H·T} equally weighted paths, few enough for T = 2 on a small problem), FedAvg's and
//    Scaffold's (its control variates carried along every path);
//  - the stationary law: as T grows the curve reaches (F5)/(S6)/(O2)'s exact stationary moments.
// Tolerances: the recursions are O(T·s) products of s×s matrices with entries ≤ 1, so both sides
// agree to a few hundred ulps of the moments' size; 1e-11 relative leaves a wide margin and a
// formula error (a missing noise term, a wrong power of B_c, a 1/N) is ≥ γ² ≈ 1e-3 of it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify {
namespace {

using theory::Algorithm;
using theory::RunSetting;

constexpr double kTolerance = 1e-11;

// x_t's mean and E‖x_t − x*‖² by iterating a brute-force round map from z_0 = (x0, 0, …, 0).
struct Curve {
  std::vector<Vector> mean;
  std::vector<double> mse;
};
Curve iterate(const verify::RoundMap& r, const Vector& x0, const Vector& x_star, int rounds) {
  const Eigen::Index d = x0.size();
  Vector m = Vector::Zero(r.f.rows());
  m.head(d) = x0;
  Matrix s = Matrix::Zero(r.f.rows(), r.f.rows());
  Curve out;
  for (int t = 0; t <= rounds; ++t) {
    out.mean.push_back(m.head(d));
    out.mse.push_back((m.head(d) - x_star).squaredNorm() + s.topLeftCorner(d, d).trace());
    m = r.f * m + r.c;
    s = r.f * s * r.f.transpose() + r.q;
  }
  return out;
}

void expect_curve(const std::string& what, const theory::TrajectoryMoments& exact,
                  const Vector& x_star, const Curve& reference) {
  const std::vector<double> mse = theory::mean_square_error(exact, x_star);
  ASSERT_EQ(mse.size(), reference.mse.size()) << what;
  double worst = 0;
  for (std::size_t t = 0; t < mse.size(); ++t) {
    worst = std::max(worst, std::abs(mse[t] - reference.mse[t]) / reference.mse[t]);
    worst = std::max(worst, (exact.mean[t] - reference.mean[t]).norm() /
                                std::max(reference.mean[t].norm(), 1e-300));
  }
  fmt::print("{}: largest relative difference over {} rounds {:.2e}\n", what, mse.size() - 1,
             worst);
  EXPECT_LE(worst, kTolerance) << what;
}

TEST(ExactTrajectory, FedavgAndScaffoldMatchTheirBruteForceRounds) {
  for (const verify::ChainCase& k : verify::kChainCases) {
    const theory::QuadraticProblem q = verify::chain_problem(k);
    const RunSetting s{k.gamma, k.local_steps};
    const Vector x_star = theory::expansion_coefficients(q).constants.x_star;
    const Vector x0 = x_star + Vector::Constant(q.dim(), 1.5);
    const int rounds = 30;
    expect_curve(
        "fedavg " + verify::describe(k),
        theory::exact_trajectory(q, Algorithm::fedavg, s, x0, rounds), x_star,
        iterate(verify::brute_force_fedavg_round(q, k.gamma, k.local_steps), x0, x_star, rounds));
    expect_curve(
        "scaffold " + verify::describe(k),
        theory::exact_trajectory(q, Algorithm::scaffold, s, x0, rounds), x_star,
        iterate(verify::brute_force_scaffold_round(q, k.gamma, k.local_steps), x0, x_star, rounds));
  }
}

// FedRR is two independent FedAvg runs (THEORY (R2) at every t): mean 2m_γ − m_2γ, trace 4Σ_γ +
// Σ_2γ.
TEST(ExactTrajectory, FedrrCombinesTwoIndependentRuns) {
  const verify::ChainCase& k = verify::kChainCases[1];
  const theory::QuadraticProblem q = verify::chain_problem(k);
  const Vector x_star = theory::expansion_coefficients(q).constants.x_star;
  const Vector x0 = x_star + Vector::Constant(q.dim(), -0.7);
  const Curve low =
      iterate(verify::brute_force_fedavg_round(q, k.gamma, k.local_steps), x0, x_star, 20);
  const Curve high =
      iterate(verify::brute_force_fedavg_round(q, 2 * k.gamma, k.local_steps), x0, x_star, 20);
  Curve rr;
  for (std::size_t t = 0; t < low.mean.size(); ++t) {
    const Vector m = 2.0 * low.mean[t] - high.mean[t];
    // tr Cov = mse − ‖mean − x*‖² for each run.
    const double tr_low = low.mse[t] - (low.mean[t] - x_star).squaredNorm();
    const double tr_high = high.mse[t] - (high.mean[t] - x_star).squaredNorm();
    rr.mean.push_back(m);
    rr.mse.push_back((m - x_star).squaredNorm() + 4.0 * tr_low + tr_high);
  }
  expect_curve("fedrr",
               theory::exact_trajectory(q, Algorithm::fedrr, {k.gamma, k.local_steps}, x0, 20),
               x_star, rr);
}

// As T → ∞ the curve reaches the stationary law of the exact closed forms: E‖x − x*‖² =
// ‖m_π − x*‖² + tr Σ_π (ρ^T ≤ 1e-14 at T = 4000 in these settings).
TEST(ExactTrajectory, ReachesTheStationaryLaw) {
  const verify::ChainCase& k = verify::kChainCases[2];
  const theory::QuadraticProblem q = verify::chain_problem(k);
  const Vector x_star = theory::expansion_coefficients(q).constants.x_star;
  const Vector x0 = x_star + Vector::Constant(q.dim(), 2.0);
  for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    const RunSetting s{k.gamma, k.local_steps};
    const theory::ExactMoments pi = theory::exact_moments(q, a, s);
    const double stationary = (pi.mean - x_star).squaredNorm() + pi.cov.trace();
    const std::vector<double> mse =
        theory::mean_square_error(theory::exact_trajectory(q, a, s, x0, 4000), x_star);
    EXPECT_NEAR(mse.back(), stationary, 1e-9 * stationary) << a.name();
    EXPECT_GT(mse.front(), 10 * stationary) << a.name();  // it did start far away
  }
}

// Linear-sa FedAvg: the law of x_1 and x_2 by enumerating every draw (H = 2 steps of B = 1 draw
// from K = 3 samples on each of N = 2 clients: 81 paths per round, 6561 over two rounds).
TEST(ExactTrajectory, LinearSaFedavgMatchesEnumerationOfEveryDraw) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 2, 3, 1, 21);
  const RunSetting s{0.2, 2};
  const Vector x0 = Vector::Constant(2, 1.0);
  std::vector<std::vector<verify::Sample>> samples(p.num_clients());
  for (int c = 0; c < p.num_clients(); ++c) samples[c] = verify::samples_of(p, c);
  // (probability, x) after each round, by enumeration.
  std::vector<std::pair<double, Vector>> law = {{1.0, x0}};
  Curve reference;
  const auto record = [&] {
    Vector mean = Vector::Zero(2);
    for (const auto& [w, x] : law) mean += w * x;
    double mse = 0;
    for (const auto& [w, x] : law) mse += w * (x - p.solution()).squaredNorm();
    reference.mean.push_back(mean);
    reference.mse.push_back(mse);
  };
  record();
  for (int t = 0; t < 2; ++t) {
    std::vector<std::pair<double, Vector>> next;
    for (const auto& [w, x] : law) {
      // Every client's H draws: 3² paths each, the clients independent.
      std::vector<std::vector<std::pair<double, Vector>>> ends(2);
      for (int c = 0; c < 2; ++c) {
        for (const verify::Sample& s1 : samples[c]) {
          for (const verify::Sample& s2 : samples[c]) {
            Vector y = x - s.gamma * (s1.a * x - s1.b);
            y = y - s.gamma * (s2.a * y - s2.b);
            ends[c].push_back({s1.p * s2.p, y});
          }
        }
      }
      for (const auto& [w0, y0] : ends[0]) {
        for (const auto& [w1, y1] : ends[1]) next.push_back({w * w0 * w1, 0.5 * (y0 + y1)});
      }
    }
    law = std::move(next);
    record();
  }
  expect_curve("linear-sa fedavg, enumeration",
               theory::exact_trajectory(p, Algorithm::fedavg, s, x0, 2), p.solution(), reference);
}

TEST(ExactTrajectory, RefusesWhatItDoesNotCover) {
  const verify::ChainCase& k = verify::kChainCases[0];
  const theory::QuadraticProblem q = verify::chain_problem(k);
  const Vector x0 = Vector::Zero(q.dim());
  EXPECT_THROW(theory::exact_trajectory(q, Algorithm::fedavg, {k.gamma, 1}, Vector::Zero(5), 3),
               InputError);  // --x0 of the wrong size
  EXPECT_THROW(theory::exact_trajectory(q, Algorithm::fedavg, {k.gamma, 1}, x0, -1),
               InputError);  // --rounds < 0
  RunSetting sampled{k.gamma, 1};
  sampled.participating = 1;
  EXPECT_THROW(theory::exact_trajectory(q, Algorithm::scaffold, sampled, x0, 3), InputError);
  const theory::LinearSaProblem p = verify::dense_problem(2, 2, 3, 1, 21);
  EXPECT_THROW(theory::exact_trajectory(p, Algorithm::scaffold, sampled, Vector::Zero(2), 3),
               InputError);  // linear-sa: full participation only, too
}

// Linear-sa Scaffold: the law of (x, ξ_1, ξ_2) after two rounds by enumerating every draw, with
// Scaffold's rule written out: y ← y − γ(A y − b + ξ_c) for H steps from x, then x' = (1/N) Σ_c
// y_c and ξ_c' = ξ_c + (y_c − x')/(γH), from ξ = 0.
TEST(ExactTrajectory, LinearSaScaffoldMatchesEnumerationOfEveryDraw) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 2, 3, 1, 23);
  const RunSetting s{0.2, 2};
  const Vector x0 = Vector::Constant(2, -1.0);
  std::vector<std::vector<verify::Sample>> samples(p.num_clients());
  for (int c = 0; c < p.num_clients(); ++c) samples[c] = verify::samples_of(p, c);
  struct State {
    double w;
    Vector x, xi0, xi1;
  };
  std::vector<State> law = {{1.0, x0, Vector::Zero(2), Vector::Zero(2)}};
  Curve reference;
  const auto record = [&] {
    Vector mean = Vector::Zero(2);
    double mse = 0;
    for (const State& z : law) {
      mean += z.w * z.x;
      mse += z.w * (z.x - p.solution()).squaredNorm();
    }
    reference.mean.push_back(mean);
    reference.mse.push_back(mse);
  };
  record();
  for (int t = 0; t < 2; ++t) {
    std::vector<State> next;
    for (const State& z : law) {
      std::vector<std::vector<std::pair<double, Vector>>> ends(2);
      for (int c = 0; c < 2; ++c) {
        const Vector& xi = c == 0 ? z.xi0 : z.xi1;
        for (const verify::Sample& s1 : samples[c]) {
          for (const verify::Sample& s2 : samples[c]) {
            Vector y = z.x - s.gamma * (s1.a * z.x - s1.b + xi);
            y = y - s.gamma * (s2.a * y - s2.b + xi);
            ends[c].push_back({s1.p * s2.p, y});
          }
        }
      }
      for (const auto& [w0, y0] : ends[0]) {
        for (const auto& [w1, y1] : ends[1]) {
          const Vector x = 0.5 * (y0 + y1);
          const double scale = 1.0 / (s.gamma * s.local_steps);
          next.push_back({z.w * w0 * w1, x, z.xi0 + scale * (y0 - x), z.xi1 + scale * (y1 - x)});
        }
      }
    }
    law = std::move(next);
    record();
  }
  expect_curve("linear-sa scaffold, enumeration",
               theory::exact_trajectory(p, Algorithm::scaffold, s, x0, 2), p.solution(), reference);
}

// As T → ∞ the linear-sa curves reach the stationary laws of (L1)'s fixed-point solves (another
// code path: the Stein equation's iteration), FedAvg's and Scaffold's.
TEST(ExactTrajectory, LinearSaCurvesReachTheStationaryLaw) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 3, 4, 1, 29);
  const RunSetting s{0.05, 3};
  const Vector x0 = p.solution() + Vector::Constant(2, 2.0);
  const theory::ExactMoments fedavg = theory::fedavg_exact_lsa(p, s);
  const theory::ScaffoldExactMoments scaffold = theory::scaffold_exact_lsa(p, s);
  for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold}) {
    const bool is_fedavg = a == Algorithm::fedavg;
    const Vector mean = is_fedavg ? fedavg.mean : scaffold.x_mean();
    const double trace = is_fedavg ? fedavg.cov.trace() : scaffold.x_cov().trace();
    const double stationary = (mean - p.solution()).squaredNorm() + trace;
    const std::vector<double> mse =
        theory::mean_square_error(theory::exact_trajectory(p, a, s, x0, 6000), p.solution());
    EXPECT_NEAR(mse.back(), stationary, 1e-9 * stationary) << a.name();
    EXPECT_GT(mse.front(), 10 * stationary) << a.name();
  }
}

}  // namespace
}  // namespace fedverify
