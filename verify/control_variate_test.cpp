// The linearised control variate end to end (THEORY (L3); simulate's mean_cv = mean(x − y) +
// m_lin): on logistic it estimates the same E_π[x] as plain Monte Carlo, and a wrong twin mean
// (m_lin without the twin's heterogeneity bias) is told apart; and along a finite-time curve the
// twin follows the exact law of the per-sample linearisation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/decide.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using estimators::SimulationResult;
using estimators::SimulationSpec;
using theory::Algorithm;

constexpr double kAlpha = 0.01;     // level of the equivalence test (TOST)
constexpr double kMissRate = 1e-3;  // probability that a correct build fails (per test)

// The small logistic problem: d = 3, N = 4 clients of 30 samples, B = 1.
theory::LogisticProblem problem() { return verify::logistic(3, 4, 30, 1); }

SimulationSpec spec_of(Algorithm algorithm, double gamma, std::uint64_t seed, bool twin) {
  SimulationSpec spec;
  spec.algorithm = algorithm;
  spec.step = {gamma, 2};
  spec.chains = 256;
  spec.rounds = 1200;
  spec.burn_in = 200;
  spec.seed = seed;
  spec.threads = 2;
  spec.linearised_twin = twin;
  return spec;
}

struct Agreement {
  Vector difference, se;
  estimators::Decision decision;
};

// θ = E[plain mean] − E[mean(x − y) + m_lin] from two independent runs (seeds 1 and 2), and its
// TOST on [−δ, δ] per coordinate with the MCSE-derived margin δ_i = (z_{1−α} + z_{1−β/d})·se_i:
// if both estimate the same mean, the TOST confirms with probability ≥ 1 − β (power of each
// coordinate's one-sided tests at true θ = 0, Bonferroni over d).
Agreement agreement(Algorithm algorithm, double gamma, const Vector& twin_mean) {
  const auto p = problem();
  const SimulationResult plain = estimators::simulate(p, spec_of(algorithm, gamma, 1, false));
  const SimulationResult cv = estimators::simulate(p, spec_of(algorithm, gamma, 2, true));
  EXPECT_FALSE(plain.diverged || cv.diverged);
  Agreement a;
  a.difference = plain.moments.mean - (cv.twin_difference->mean + twin_mean);
  a.se = (plain.moments.mean_mcse.array().square() + cv.twin_difference->mean_mcse.array().square())
             .sqrt()
             .matrix();
  const double d = static_cast<double>(p.dim());
  const Vector margin =
      (estimators::z_one_sided(kAlpha) + estimators::z_one_sided(kMissRate / d)) * a.se;
  a.decision = estimators::equivalence_test(a.difference, a.se, 0, -margin, margin, kAlpha);
  return a;
}

// Statement: mean_cv and the plain mean estimate the same E_π[x] (FedAvg and Scaffold, H = 2,
// γL ≈ 0.1 and 0.03). Decision: TOST at α = 0.01 with the margin above (fails a correct build
// with probability ≤ 1e-3).
TEST(ControlVariate, AgreesWithPlainMonteCarloOnLogistic) {
  const auto p = problem();
  const double l = p.smoothness();
  for (const Algorithm algorithm : {Algorithm::fedavg, Algorithm::scaffold}) {
    for (const double gamma_l : {0.1, 0.03}) {
      SCOPED_TRACE(theory::to_string(algorithm) + " gamma L " + std::to_string(gamma_l));
      const theory::RunSetting step{gamma_l / l, 2};
      const Agreement a =
          agreement(algorithm, step.gamma, theory::linearised_stationary_mean(p, algorithm, step));
      EXPECT_TRUE(a.decision.passed) << a.decision.description << "\ndifference "
                                     << a.difference.transpose() << "\nse " << a.se.transpose();
    }
  }
}

// Planted: the twin's mean taken as x* (dropping the linearised FedAvg's heterogeneity bias
// γ(H − 1)b_h + O(γ²)) shifts mean_cv by that bias; at γL = 0.1 the equivalence is no longer
// confirmed. Decision: the TOST of the test above does not pass.
TEST(ControlVariate, AWrongTwinMeanIsNotConfirmed) {
  const auto p = problem();
  const double gamma = 0.1 / p.smoothness();
  const Agreement a = agreement(Algorithm::fedavg, gamma, theory::minimizer(p));
  EXPECT_FALSE(a.decision.passed) << a.decision.description << "\ndifference "
                                  << a.difference.transpose() << "\nse " << a.se.transpose();
}

// The twin's law along a finite-time curve (what dynamics.gradient-complexity-logistic adds back:
// simulate_trajectory_with_twin): the mean over K chains of ‖y_t − x*‖², y the twin rows of a run
// from x₀ = x* + 1, against the exact E‖y_t − x*‖² of theory::per_sample_linearisation's chain
// (THEORY (T1): FedAvg's and Scaffold's linear-sa trajectories). The twin kernel and the linear-sa
// problem are separate code, so this is the coupling's end-to-end check. Returns the largest
// |z| over the rounds checked.
double twin_curve_z(Algorithm algorithm, const theory::LinearSaProblem& twin_law) {
  const auto p = problem();
  const Vector x_star = theory::minimizer(p);
  const theory::RunSetting step{0.1 / p.smoothness(), 3};
  const Vector x0 = x_star + Vector::Ones(p.dim());
  const std::vector<int> checked = {1, 3, 10, 30, 100};
  const std::vector<double> exact = theory::mean_square_error(
      theory::exact_trajectory(twin_law, algorithm, step, x0, checked.back()), x_star);
  estimators::SamplerOptions options;
  options.algorithm = algorithm;
  options.step = step;
  options.seed = 7;
  options.linearised_twin = true;
  estimators::ChainEnsemble e(p, options, x0, 4096);
  double worst = 0;
  std::size_t next = 0;
  e.advance(checked.back(), 2, [&](const estimators::ChainEnsemble& ens) {
    if (next < checked.size() && ens.rounds_done() == checked[next]) {
      const Matrix y = ens.state().bottomRows(p.dim()).colwise() - x_star;
      const Eigen::ArrayXd sq = y.colwise().squaredNorm().transpose().array();
      const double k = static_cast<double>(sq.size());
      const double se = std::sqrt((sq - sq.mean()).square().sum() / (k - 1) / k);
      worst = std::max(worst, std::abs(sq.mean() - exact[checked[next]]) / se);
      ++next;
    }
    return true;
  });
  std::printf("%s: largest |z| over the rounds %.2f\n", theory::to_string(algorithm).c_str(),
              worst);
  return worst;
}

// Statement: the twin rows follow the exact law of the per-sample linearisation (FedAvg and
// Scaffold, H = 3, γL = 0.1, 4096 chains). Decision: every |z| at rounds 1, 3, 10, 30, 100 below
// z_{1−β/(2·10)} (Bonferroni over both algorithms' 5 rounds; a correct build fails with
// probability ≤ β = 1e-3).
TEST(ControlVariate, TheTwinFollowsTheExactLawOfThePerSampleLinearisation) {
  const auto p = problem();
  const theory::LinearSaProblem law = theory::per_sample_linearisation(p, theory::minimizer(p));
  const double threshold = estimators::z_two_sided(kMissRate / 10);
  for (const Algorithm algorithm : {Algorithm::fedavg, Algorithm::scaffold}) {
    EXPECT_LE(twin_curve_z(algorithm, law), threshold) << theory::to_string(algorithm);
  }
}

// Planted: the law of a linearisation at a point 0.3 away from x* (every client's A_j and b_j
// change by O(0.3·∇³ℓ)) is told apart by the same statistic.
TEST(ControlVariate, AWrongTwinLawIsRejected) {
  const auto p = problem();
  const Vector elsewhere = theory::minimizer(p) + Vector::Constant(p.dim(), 0.3);
  const theory::LinearSaProblem wrong = theory::per_sample_linearisation(p, elsewhere);
  EXPECT_GT(twin_curve_z(Algorithm::scaffold, wrong), estimators::z_two_sided(kMissRate / 10));
}

}  // namespace
}  // namespace fedverify
