// FedDyn's chain engine (estimators/samplers/algorithms/feddyn.hpp) against its exact stationary
// law (theory/algorithms/feddyn.hpp, docs/THEORY-FedDyn.md (FD1)–(FD3)): sibling layers, so their
// agreement is checked here.
//
// Statement: after T rounds from (x, h) = 0 the K chains are independent draws from a law whose
// stacked mean and covariance, of (x, h_1, …, h_N), are the exact stationary ones up to the
// transient (ρ^T ≤ 1e-10, asserted), negligible against the MCSE. Decision: per-entry z-tests
// with Bonferroni over the d' + d'(d'+1)/2 entries (d' = d(N+1)), α = 1e-3 per setting
// (verify::expect_moments). Planted: the round without the server's −h̄/α term (FeddynRound
// with a Variant whose correction is 0) has no stationary law (THEORY-FedDyn (FD2)); its largest
// |z| is required to exceed 10× the threshold. Same seed ⇒ the same bits on 1 and 2 threads.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/feddyn.hpp"
#include "estimators/samplers/chains.hpp"
#include "theory/algorithms/feddyn.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 3000;

estimators::SamplerOptions feddyn_options(double gamma, int local_steps, double alpha) {
  estimators::SamplerOptions o;
  o.algorithm = theory::Algorithm{"feddyn"};
  o.step = {gamma, local_steps};
  o.step.parameters.emplace(std::string(theory::kDynAlphaKey), std::vector<double>{alpha});
  o.seed = 2031;
  return o;
}

// Rounds for ρ^T ≤ 1e-10.
int rounds_for(double rho) { return static_cast<int>(std::ceil(std::log(1e-10) / std::log(rho))); }

// The largest per-entry |z| of expect_moments's statistic, without asserting (for the planted run).
double largest_z(const Matrix& x, const Vector& mean, const Matrix& cov) {
  const auto k = static_cast<double>(x.cols());
  const Vector m = x.rowwise().mean();
  const Matrix centred = x.colwise() - m;
  double worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double sd = std::sqrt(centred.row(i).squaredNorm() / (k - 1));
    worst = std::max(worst, std::abs(m(i) - mean(i)) / (sd / std::sqrt(k)));
    for (Eigen::Index j = 0; j <= i; ++j) {
      const Eigen::ArrayXd p = centred.row(i).array() * centred.row(j).array();
      const double sd_p = std::sqrt((p - p.mean()).square().sum() / (k - 1));
      worst = std::max(worst, std::abs(p.sum() / (k - 1) - cov(i, j)) / (sd_p / std::sqrt(k)));
    }
  }
  return worst;
}

struct NoServerCorrection {
  static double server_correction(double /*mean_h*/, double /*alpha*/) { return 0.0; }
};

TEST(FeddynSimulation, StackedStationaryMomentsAreTheExactOnes) {
  const auto q = verify::quadratic(2, 3, 1.0);
  struct Setting {
    double gamma;
    int local_steps;
    double alpha;
  };
  for (const Setting& s : {Setting{0.05, 5, 0.1}, Setting{0.1, 2, 1.0}, Setting{0.05, 1, 0.5}}) {
    const std::string label =
        fmt::format("gamma {} H {} alpha {}", s.gamma, s.local_steps, s.alpha);
    const auto o = feddyn_options(s.gamma, s.local_steps, s.alpha);
    const theory::ExactMoments exact = theory::feddyn_exact_state(q, o.step);
    const int rounds = rounds_for(exact.spectral_radius);
    ASSERT_LT(rounds, 5000) << label;
    estimators::ChainEnsemble e(q, o, Vector::Zero(q.dim()), kChains);
    e.advance_recording(rounds, 0, [](int, const Matrix&) {});
    fmt::print("{}: rho {:.4f}, {} rounds\n", label, exact.spectral_radius, rounds);
    verify::expect_moments(e.stacked_state(), exact.mean, exact.cov, kAlpha, label);
  }
}

TEST(FeddynSimulation, PlantedServerWithoutTheCorrectionIsCaught) {
  const auto q = verify::quadratic(2, 3, 1.0);
  auto o = feddyn_options(0.05, 5, 0.1);
  const theory::ExactMoments exact = theory::feddyn_exact_state(q, o.step);
  o.round = std::make_shared<estimators::FeddynRound<NoServerCorrection>>();
  estimators::ChainEnsemble e(q, o, Vector::Zero(q.dim()), kChains);
  e.advance_recording(rounds_for(exact.spectral_radius), 0, [](int, const Matrix&) {});
  const int d = static_cast<int>(exact.mean.size());
  const int comparisons = d + d * (d + 1) / 2;  // as expect_moments: means and covariances
  const double threshold = verify::z_two_sided(kAlpha / comparisons);
  const double z = largest_z(e.stacked_state(), exact.mean, exact.cov);
  fmt::print("planted (no -h/alpha): largest |z| = {:.1f} (threshold {:.2f})\n", z, threshold);
  EXPECT_GT(z, 10.0 * threshold);
}

TEST(FeddynSimulation, SameSeedSameBitsOnOneAndTwoThreads) {
  const auto q = verify::quadratic(3, 5, 1.0);
  const auto o = feddyn_options(0.05, 3, 0.3);
  estimators::ChainEnsemble one(q, o, Vector::Zero(q.dim()), 21);  // K not a multiple of 8
  estimators::ChainEnsemble two(q, o, Vector::Zero(q.dim()), 21);
  for (int t = 0; t < 40; ++t) {
    ASSERT_TRUE(one.advance(1));
    ASSERT_TRUE(two.advance(2));
  }
  EXPECT_EQ(one.stacked_state(), two.stacked_state());
  EXPECT_GT(one.stacked_state().bottomRows(3 * 5).cwiseAbs().maxCoeff(), 0.0);  // h moved
}

}  // namespace
}  // namespace fedverify
