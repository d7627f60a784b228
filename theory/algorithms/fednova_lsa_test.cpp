// FedNova's exact law on linear-sa problems (theory/algorithms/fednova_lsa.cpp, THEORY (A2) with
// (L1)), and FedAvg's with the same unequal steps, against computations sharing none of its code:
//  - the law of x_1, x_2 by enumerating every draw of every local step of both clients (H_c =
//    1 and 2, K = 3 samples each: 27 paths a round), with the server's rule written out;
//  - equal steps: FedAvg's exact stationary law (fedavg_exact_lsa);
//  - the curve's limit at T = 6000: the stationary solve (another code path, the fixed-point
//    iteration of lsa_stationary_covariance).
// Tolerances: the enumeration and the recursion are O(T) products of O(1) matrices, 1e-12
// relative; the stationary solve stops at 1e-15 relative of its fixed point and the curve's
// geometric tail is below 1e-12 at T = 6000 here: 1e-9.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"

namespace fedverify {
namespace {

using theory::RunSetting;
using theory::UnequalStepsAggregation;

RunSetting with_steps(double gamma, std::vector<double> steps) {
  RunSetting s{gamma, 1};
  s.parameters.emplace(std::string(theory::kClientStepsKey), std::move(steps));
  return s;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / b.norm(); }

TEST(FednovaLinearSa, TrajectoryMatchesEnumerationOfEveryDraw) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 2, 3, 1, 31);
  const RunSetting s = with_steps(0.2, {1, 2});
  const Vector x0 = Vector::Constant(2, 1.5);
  std::vector<std::vector<verify::Sample>> samples(2);
  for (int c = 0; c < 2; ++c) samples[c] = verify::samples_of(p, c);
  for (const auto aggregation :
       {UnequalStepsAggregation::normalised, UnequalStepsAggregation::plain}) {
    // x' = x − Σ_c w_c (x − y_c)/N with w_c = H̄/H_c (FedNova) or 1 (FedAvg); H̄ = 1.5.
    const std::vector<double> w = aggregation == UnequalStepsAggregation::normalised
                                      ? std::vector<double>{1.5, 0.75}
                                      : std::vector<double>{1.0, 1.0};
    std::vector<std::pair<double, Vector>> law = {{1.0, x0}};
    std::vector<double> mse_reference;
    const auto record = [&] {
      double mse = 0;
      for (const auto& [q, x] : law) mse += q * (x - p.solution()).squaredNorm();
      mse_reference.push_back(mse);
    };
    record();
    for (int t = 0; t < 2; ++t) {
      std::vector<std::pair<double, Vector>> next;
      for (const auto& [q, x] : law) {
        std::vector<std::pair<double, Vector>> first, second;  // client 0 (1 step), 1 (2 steps)
        for (const verify::Sample& a : samples[0]) {
          first.push_back({a.p, x - s.gamma * (a.a * x - a.b)});
        }
        for (const verify::Sample& a : samples[1]) {
          for (const verify::Sample& b : samples[1]) {
            Vector y = x - s.gamma * (a.a * x - a.b);
            y = y - s.gamma * (b.a * y - b.b);
            second.push_back({a.p * b.p, y});
          }
        }
        for (const auto& [q0, y0] : first) {
          for (const auto& [q1, y1] : second) {
            next.push_back({q * q0 * q1, x - 0.5 * (w[0] * (x - y0) + w[1] * (x - y1))});
          }
        }
      }
      law = std::move(next);
      record();
    }
    const std::vector<double> mse = theory::mean_square_error(
        theory::unequal_steps_trajectory_lsa(p, s, x0, 2, aggregation), p.solution());
    for (std::size_t t = 0; t < mse.size(); ++t) {
      EXPECT_NEAR(mse[t], mse_reference[t], 1e-12 * mse_reference[t]) << "t = " << t;
    }
  }
}

TEST(FednovaLinearSa, EqualStepsIsFedavg) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 3, 4, 1, 37);
  const theory::ExactMoments nova = theory::unequal_steps_exact_lsa(
      p, with_steps(0.05, {3, 3, 3}), UnequalStepsAggregation::normalised);
  const theory::ExactMoments avg = theory::fedavg_exact_lsa(p, RunSetting{0.05, 3});
  EXPECT_LE(relative(nova.mean, avg.mean), 1e-12);
  EXPECT_LE(relative(nova.cov, avg.cov), 1e-9);
}

TEST(FednovaLinearSa, CurveReachesTheStationaryLaw) {
  const theory::LinearSaProblem p = verify::dense_problem(2, 3, 4, 1, 41);
  const RunSetting s = with_steps(0.05, {1, 2, 4});
  const Vector x0 = p.solution() + Vector::Constant(2, 2.0);
  for (const auto aggregation :
       {UnequalStepsAggregation::normalised, UnequalStepsAggregation::plain}) {
    const theory::ExactMoments pi = theory::unequal_steps_exact_lsa(p, s, aggregation);
    const theory::TrajectoryMoments curve =
        theory::unequal_steps_trajectory_lsa(p, s, x0, 6000, aggregation);
    EXPECT_LE(relative(curve.mean.back(), pi.mean), 1e-9);
    EXPECT_NEAR(curve.trace_cov.back(), pi.cov.trace(), 1e-9 * pi.cov.trace());
  }
}

}  // namespace
}  // namespace fedverify
