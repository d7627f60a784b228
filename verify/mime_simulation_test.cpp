// Mime's chain engine (estimators/samplers/algorithms/mime.hpp and the kernels' control-variate
// steps) against its exact laws (theory/algorithms/mime.hpp, docs/THEORY-Mime.md (MI1), (MI3)):
// sibling layers, so their agreement is checked here.
//
// Linear-sa (MI3). Statement: from x₀ (m = 0) the K chains' x_t are independent draws whose mean
// and mean square error E‖x_t − x*‖² are the exact ones of (MI3), at t = 2, 8, 24. Decision: per
// t, z-tests of the d coordinates of the mean and of the MSE (standard errors from the K chains),
// Bonferroni over the 3(d + 1) tests, α = 1e-3. Planted: MimeLite (the clients' step on the raw
// stochastic gradient, MimeRound<LiteMime>) keeps a noise floor: its MSE at t = 24 must exceed the
// exact one by more than 10× the threshold in z.
// Quadratic (MI1): the additive noise cancels in the control variate, so every chain follows the
// exact (deterministic) trajectory: ≤ 1e-12 relative at every round. Same seed ⇒ the same bits on 1
// and 2 threads.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/mime.hpp"
#include "estimators/samplers/chains.hpp"
#include "theory/algorithms/mime.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/testing/linear_sa_cases.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 4000;
const std::vector<int> kTimes = {2, 8, 24};

estimators::SamplerOptions mime_options(double gamma, int local_steps, double beta) {
  estimators::SamplerOptions o;
  o.algorithm = theory::Algorithm{"mime"};
  o.step = {gamma, local_steps};
  o.step.parameters.emplace(std::string(theory::kMimeBetaKey), std::vector<double>{beta});
  o.seed = 4041;
  return o;
}

struct LiteMime {
  static constexpr bool kControlVariate = false;
};

// The largest |z| over the mean's coordinates and the MSE of the chains' x (columns) at one t.
double largest_z(const Matrix& x, const Vector& x_star, const Vector& mean, double mse) {
  const auto k = static_cast<double>(x.cols());
  double worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const Eigen::ArrayXd row = x.row(i).array();
    const double sd = std::sqrt((row - row.mean()).square().sum() / (k - 1));
    worst = std::max(worst, std::abs(row.mean() - mean(i)) / (sd / std::sqrt(k)));
  }
  const Eigen::ArrayXd err = (x.colwise() - x_star).colwise().squaredNorm().transpose().array();
  const double sd = std::sqrt((err - err.mean()).square().sum() / (k - 1));
  return std::max(worst, std::abs(err.mean() - mse) / (sd / std::sqrt(k)));
}

// |z| at each of kTimes for `o` (its round) against the exact trajectory of (MI3).
std::vector<double> z_along(const theory::LinearSaProblem& p, const estimators::SamplerOptions& o,
                            const Vector& x0) {
  const theory::TrajectoryMoments exact = theory::mime_trajectory_lsa(p, o.step, x0, kTimes.back());
  estimators::ChainEnsemble e(p, o, x0, kChains);
  std::vector<double> out;
  int t = 0;
  for (const int at : kTimes) {
    for (; t < at; ++t) EXPECT_TRUE(e.advance(2));  // one round on 2 threads
    const double mse = (exact.mean[at] - p.solution()).squaredNorm() + exact.trace_cov[at];
    out.push_back(largest_z(e.state(), p.solution(), exact.mean[at], mse));
    fmt::print("t = {}: exact E‖x_t − x*‖² {:.4e}, simulated {:.4e}, largest |z| {:.2f}\n", at, mse,
               (e.state().colwise() - p.solution()).colwise().squaredNorm().mean(), out.back());
  }
  return out;
}

Vector start_of(const theory::LinearSaProblem& p) {
  Vector x0 = p.solution();
  for (int i = 0; i < p.dim(); ++i) x0(i) += 1.0 - 0.4 * i;
  return x0;
}

TEST(MimeSimulation, LinearSaTrajectoryIsTheExactOne) {
  const auto p = verify::dense_problem(3, 3, 5, 1, 17);
  const auto o = mime_options(0.1, 4, 0.8);
  const double threshold =
      verify::z_two_sided(kAlpha / (static_cast<double>(kTimes.size()) * (p.dim() + 1)));
  for (const double z : z_along(p, o, start_of(p))) EXPECT_LE(z, threshold);
}

TEST(MimeSimulation, PlantedMimeLiteIsCaught) {
  const auto p = verify::dense_problem(3, 3, 5, 1, 17);
  auto o = mime_options(0.1, 4, 0.8);
  o.round = std::make_shared<estimators::MimeRound<LiteMime>>();
  const double threshold =
      verify::z_two_sided(kAlpha / (static_cast<double>(kTimes.size()) * (p.dim() + 1)));
  const std::vector<double> z = z_along(p, o, start_of(p));
  fmt::print("planted MimeLite: largest |z| at t = {} is {:.1f} (threshold {:.2f})\n",
             kTimes.back(), z.back(), threshold);
  EXPECT_GT(z.back(), 10.0 * threshold);
}

TEST(MimeSimulation, QuadraticChainsFollowTheExactTrajectory) {
  const auto q = verify::quadratic(3, 4, 1.0);
  const auto o = mime_options(0.05, 3, 0.9);
  const Vector x0 = Vector::Constant(3, 2.0);
  const int rounds = 30;
  const theory::TrajectoryMoments exact =
      theory::affine_trajectory(theory::mime_round_map(q, o.step), x0, rounds);
  estimators::ChainEnsemble e(q, o, x0, 16);
  for (int t = 1; t <= rounds; ++t) {
    ASSERT_TRUE(e.advance(1));
    const Matrix deviation = e.state().colwise() - exact.mean[t];
    EXPECT_LE(deviation.cwiseAbs().maxCoeff(), 1e-12 * (exact.mean[t].norm() + 1.0)) << t;
  }
}

TEST(MimeSimulation, SameSeedSameBitsOnOneAndTwoThreads) {
  auto p = verify::least_squares_problem(3, 5, 8, 2, 0.1, 9);
  p.set_client_weights({1, 2, 3, 4, 5});
  const auto o = mime_options(0.05, 3, 0.5);
  estimators::ChainEnsemble one(p, o, Vector::Zero(3), 21);  // K not a multiple of 8
  estimators::ChainEnsemble two(p, o, Vector::Zero(3), 21);
  for (int t = 0; t < 40; ++t) {
    ASSERT_TRUE(one.advance(1));
    ASSERT_TRUE(two.advance(2));
  }
  EXPECT_EQ(one.stacked_state(), two.stacked_state());
  EXPECT_GT(one.stacked_state().bottomRows(3).cwiseAbs().maxCoeff(), 0.0);  // m moved
}

}  // namespace
}  // namespace fedverify
