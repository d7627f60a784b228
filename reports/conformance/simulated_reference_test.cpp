// The simulated reference of conformance (simulated_reference.hpp), where it can be checked
// against exact laws: with server sgd (linear, THEORY O2) fedverify's own simulation must follow
// the exact one-round law (theory::fedopt_one_round) and the exact stationary law
// (theory::exact_moments), and two independent simulations must pass the two-sample tests, while
// a simulation of another server step must fail them. Statistical, at α = 0.01 per test with
// fixed seeds (deterministic outcomes; a correct reference fails each with probability ≤ 0.01 at
// any other seed), sizes large enough that the planted difference (server step 0.7 → 0.9: the
// one-round mean moves by 0.2·γ|D̄x₀ − r̄| ≈ 0.03, ≫ its MCSE ≈ 2e-4) is found with power ≈ 1.
#include "reports/conformance/simulated_reference.hpp"

#include <gtest/gtest.h>

#include "theory/algorithms/fedopt.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::reports {
namespace {

constexpr double kAlpha = 0.01;

theory::QuadraticProblem problem() {
  auto o = verify::small_options(5);
  o.dim = 2;
  o.clients = 3;
  return theory::generate_quadratic(o);
}

theory::RunSetting setting(const char* server) {
  theory::RunSetting s{0.05, 4};
  s.server = theory::parse_optimiser(server, theory::OptimiserRole::server);
  return s;
}

TEST(SimulatedReference, OneRoundFollowsTheExactLawWhereThereIsOne) {
  const theory::QuadraticProblem q = problem();
  const theory::RunSetting s = setting("sgd:lr=0.7,momentum=0.5");
  const Vector x0 = theory::minimizer(q) + Vector::Ones(q.dim());
  const estimators::MomentEstimate sample = sample_moments(reference_one_round(q, s, x0, 4000, 3));
  const theory::OneRoundLaw law = theory::fedopt_one_round(q, s, x0);
  EXPECT_TRUE(estimators::hotelling_mean_test(sample.mean, sample.mean_cov, sample.batches(),
                                              law.mean, kAlpha)
                  .passed);
  EXPECT_TRUE(
      estimators::matrix_agreement(sample.cov, law.cov, sample.cov_mcse, Matrix(), kAlpha).passed);
}

TEST(SimulatedReference, StationaryFollowsTheExactLawWhereThereIsOne) {
  const theory::QuadraticProblem q = problem();
  const theory::RunSetting s = setting("sgd:lr=0.7,momentum=0.5");
  const estimators::MomentEstimate ref = reference_stationary(q, s, 256, 400, 100, 3);
  const theory::ExactMoments exact = theory::exact_moments(q, theory::Algorithm{"fedopt"}, s);
  EXPECT_TRUE(
      estimators::hotelling_mean_test(ref.mean, ref.mean_cov, ref.batches(), exact.mean, kAlpha)
          .passed);
  EXPECT_TRUE(estimators::matrix_agreement(ref.cov, exact.cov, ref.cov_mcse, Matrix(), kAlpha,
                                           static_cast<double>(ref.batches() - 1))
                  .passed);
}

TEST(SimulatedReference, TwoSampleTestsPassTheSameLawAndFailAnother) {
  const theory::QuadraticProblem q = problem();
  const theory::RunSetting adam = setting("adam:lr=0.05");
  const Vector x0 = theory::minimizer(q) + Vector::Ones(q.dim());
  const auto one = [&](const theory::RunSetting& s, std::uint64_t seed) {
    return sample_moments(reference_one_round(q, s, x0, 4000, seed));
  };
  for (const auto& c : two_sample_checks("one-round", one(adam, 5), one(adam, 6), kAlpha, 0)) {
    EXPECT_TRUE(c.decision.passed) << c.name << ": " << c.detail;
  }
  const auto other = two_sample_checks("one-round", one(setting("sgd:lr=0.9"), 5),
                                       one(setting("sgd:lr=0.7"), 6), kAlpha, 0);
  EXPECT_FALSE(other[0].decision.passed) << other[0].detail;  // the mean moves by ≈ 0.03
  const estimators::MomentEstimate a = reference_stationary(q, adam, 128, 300, 100, 5);
  const estimators::MomentEstimate b = reference_stationary(q, adam, 128, 300, 100, 6);
  for (const auto& c :
       two_sample_checks("stationary", a, b, kAlpha, static_cast<double>(a.batches() - 1))) {
    EXPECT_TRUE(c.decision.passed) << c.name << ": " << c.detail;
  }
}

}  // namespace
}  // namespace fedverify::reports
