// The chain engine on linear-sa problems (kernels/linear_sa.cpp) against the exact stationary
// moments of THEORY (L1) (theory/algorithms/linear_sa.hpp: FedAvg, Scaffold, FedRR and FedOpt with
// server momentum, fedprox and client sampling): the samplers and the closed forms are sibling
// layers, so their agreement is checked here.
//
// Statement: K independent chains started at the exact stationary mean, after T rounds, are
// draws from a law whose mean and covariance are the exact stationary ones up to the transient,
// ρ^T relative to the start's offset (Scaffold's ξ start at 0; asserted ρ^T ≤ 1e-6 below:
// negligible against the MCSE, ≈ 1.6 % of a standard deviation at K = 4000). The stationary law is
// not Gaussian (multiplicative noise); the tests below use only means of i.i.d. chains, whose CLT
// holds. Decisions, each at a declared α per setting:
//  - verify::expect_moments: per-entry z-tests of the mean and covariance with MCSEs estimated
//    from the chains, Bonferroni over the d + d(d+1)/2 entries, α = 1e-3;
//  - estimators::hotelling_mean_test (decide.hpp (a')) on the mean vector, with its covariance
//    estimated from the K chains (ν = K − 1), α = 1e-3.
// Planted checks: the same samples with the minibatch factor of THEORY (L1) dropped (the exact
// covariance of B = 1 compared with a B = 4 simulation) must fail (the noise is 4× smaller), and
// so must FedOpt with S < N predicted by its S = N covariance (the sampling term of (O5) dropped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/decide.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify {
namespace {

constexpr double kAlpha = 1e-3;
constexpr int kChains = 4000;
constexpr int kRounds = 300;

// TD(0)-like: 3 clients with their own non-symmetric A (rotation plus a positive diagonal) and
// unequal sample weights (exercises the alias sampler), d = 2.
theory::LinearSaProblem td_like(int batch) {
  std::vector<theory::LinearSaClient> clients(3);
  for (int c = 0; c < 3; ++c) {
    const double s = 0.3 * (c + 1);
    Matrix a1(2, 2), a2(2, 2), a3(2, 2);
    a1 << 1.5, s, -s, 0.5;
    a2 << 0.4, -0.6, 0.9, 1.2;
    a3 << 0.9, 0.2, 0.1, 0.3 + 0.1 * c;
    Vector b1(2), b2(2), b3(2);
    b1 << 1.0 + c, -0.5;
    b2 << -0.3, 0.8 * c;
    b3 << 0.2, 0.4;
    clients[c].samples = {{1.0, a1, b1}, {2.0, a2, b2}, {0.5 + c, a3, b3}};
  }
  return theory::LinearSaProblem(std::move(clients), batch);
}

theory::LinearSaProblem least_squares() {
  std::vector<theory::LeastSquaresClient> clients(2);
  Matrix f0(4, 2), f1(3, 2);
  f0 << 1.0, 0.2, -0.5, 1.1, 0.3, -0.8, 1.4, 0.4;
  f1 << 0.7, 0.9, -1.2, 0.1, 0.2, 1.3;
  Vector y0(4), y1(3);
  y0 << 0.5, -1.0, 0.3, 1.2;
  y1 << 2.0, -0.4, 0.9;
  clients[0] = {f0, y0};
  clients[1] = {f1, y1};
  return theory::LinearSaProblem(std::move(clients), 0.05, 2);
}

Matrix run(const theory::Problem& p, theory::Algorithm algorithm, const theory::RunSetting& step,
           const Vector& start) {
  estimators::SamplerOptions o;
  o.algorithm = algorithm;
  o.step = step;
  o.seed = 20261127;
  estimators::ChainEnsemble e(p, o, start, kChains);
  e.advance_recording(kRounds, 0, [](int, const Matrix&) {});
  return e.state();
}

void expect_hotelling(const Matrix& x, const Vector& mean, const std::string& label) {
  const Vector m = x.rowwise().mean();
  const Matrix centred = x.colwise() - m;
  const auto k = static_cast<double>(x.cols());
  const Matrix mean_cov = centred * centred.transpose() / ((k - 1.0) * k);
  const auto decision = estimators::hotelling_mean_test(m, mean_cov, x.cols(), mean, kAlpha);
  EXPECT_TRUE(decision.passed) << label << ": " << decision.description;
}

theory::RunSetting fedopt_step(theory::RunSetting s, const char* server, const char* client,
                               int participating) {
  s.server = theory::parse_optimiser(server, theory::OptimiserRole::server);
  s.client = theory::parse_optimiser(client, theory::OptimiserRole::client);
  s.participating = participating;
  return s;
}

struct Case {
  std::string label;
  theory::LinearSaProblem problem;
  theory::Algorithm algorithm;
  theory::RunSetting step;
};

TEST(LinearSaSimulation, StationaryMomentsAreTheExactOnes) {
  std::vector<Case> cases;
  for (const auto algorithm :
       {theory::Algorithm::fedavg, theory::Algorithm::scaffold, theory::Algorithm::fedrr}) {
    cases.push_back(
        {"td-like B=1 " + theory::to_string(algorithm), td_like(1), algorithm, {0.15, 3}});
    cases.push_back(
        {"td-like B=3 " + theory::to_string(algorithm), td_like(3), algorithm, {0.15, 3}});
    cases.push_back({"least-squares B=2 " + theory::to_string(algorithm),
                     least_squares(),
                     algorithm,
                     {0.1, 2}});
  }
  // FedOpt (THEORY (O0), (O2), (O3), (O5)): heavy ball with S < N; Nesterov with fedprox. The
  // chains start at the exact mean of x with the momentum buffer at 0, its stationary mean.
  const theory::Algorithm fedopt = theory::parse_algorithm("fedopt");
  cases.push_back({"td-like B=1 fedopt heavy ball S=2", td_like(1), fedopt,
                   fedopt_step({0.15, 3}, "sgd:lr=0.8,momentum=0.5", "sgd", 2)});
  cases.push_back(
      {"td-like B=3 fedopt nesterov fedprox S=2", td_like(3), fedopt,
       fedopt_step({0.15, 3}, "sgd:lr=0.6,momentum=0.4,nesterov=1", "fedprox:mu=0.5", 2)});
  cases.push_back(
      {"least-squares B=2 fedopt nesterov fedprox", least_squares(), fedopt,
       fedopt_step({0.1, 2}, "sgd:lr=1.2,momentum=0.3,nesterov=1", "fedprox:mu=0.5", 0)});
  for (const Case& c : cases) {
    const auto exact = theory::algorithm_theory(c.algorithm).exact_linear_sa(c.problem, c.step);
    ASSERT_TRUE(exact.has_value()) << c.label;
    ASSERT_LT(std::pow(exact->spectral_radius, kRounds), 1e-6) << c.label;
    const Matrix x = run(c.problem, c.algorithm, c.step, exact->mean);
    verify::expect_moments(x, exact->mean, exact->cov, kAlpha, c.label);
    expect_hotelling(x, exact->mean, c.label);
  }
}

// Planted: predicting a B = 4 run with the B = 1 covariance (the 1/B of E[Ḡ ⊗ Ḡ] dropped) must be
// detected: the covariance check then fails on at least one entry.
TEST(LinearSaSimulation, PlantedMissingMinibatchFactorIsDetected) {
  const theory::LinearSaProblem b1 = td_like(1), b4 = td_like(4);
  const theory::RunSetting step{0.15, 3};
  const auto wrong = theory::algorithm_theory(theory::Algorithm::fedavg).exact_linear_sa(b1, step);
  const Matrix x = run(b4, theory::Algorithm::fedavg, step, wrong->mean);
  const Matrix centred = x.colwise() - x.rowwise().mean();
  const auto k = static_cast<double>(x.cols());
  const Matrix sample_cov = centred * centred.transpose() / (k - 1.0);
  // Per-entry z of the (0,0) variance: the planted error is ≈ 4× the true variance.
  const Eigen::ArrayXd products = centred.row(0).array().square();
  const double se =
      std::sqrt((products - products.mean()).square().sum() / (k - 1.0)) / std::sqrt(k);
  EXPECT_GT(std::abs(sample_cov(0, 0) - wrong->cov(0, 0)) / se, verify::z_two_sided(kAlpha, 5));
}

// Planted: predicting FedOpt with S = 2 of 3 clients by the S = N covariance (the sampled
// coefficients and offsets of THEORY (O5) dropped) must be detected by the same per-entry z-test.
TEST(LinearSaSimulation, PlantedFedoptWithoutSamplingTermIsDetected) {
  const theory::LinearSaProblem p = td_like(1);
  const theory::Algorithm fedopt = theory::parse_algorithm("fedopt");
  const theory::RunSetting sampled = fedopt_step({0.15, 3}, "sgd:lr=0.8,momentum=0.5", "sgd", 2);
  theory::RunSetting full = sampled;
  full.participating = 0;
  const auto wrong = theory::algorithm_theory(fedopt).exact_linear_sa(p, full);
  const Matrix x = run(p, fedopt, sampled, wrong->mean);
  const Matrix centred = x.colwise() - x.rowwise().mean();
  const auto k = static_cast<double>(x.cols());
  const Matrix sample_cov = centred * centred.transpose() / (k - 1.0);
  double largest = 0;  // the largest per-entry z of the variances
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const Eigen::ArrayXd products = centred.row(i).array().square();
    const double se =
        std::sqrt((products - products.mean()).square().sum() / (k - 1.0)) / std::sqrt(k);
    largest = std::max(largest, std::abs(sample_cov(i, i) - wrong->cov(i, i)) / se);
  }
  std::printf("planted fedopt S = N covariance for S = 2: largest |z| of the variances %.1f\n",
              largest);
  EXPECT_GT(largest, verify::z_two_sided(kAlpha, 5)) << "largest |z| " << largest;
}

}  // namespace
}  // namespace fedverify
