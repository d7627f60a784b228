// simulate() with the coupled linearised twin (SimulationSpec::linearised_twin, THEORY (L3)):
// the statistics of x are those of a run without it, bit for bit; the statistics of x − y are
// reproducible on any number of threads; on a quadratic x − y ≡ 0.
#include <gtest/gtest.h>

#include <string>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;

SimulationSpec spec_of(Algorithm algorithm, int h, int threads) {
  SimulationSpec spec;
  spec.algorithm = algorithm;
  spec.step = {0.05, h};
  spec.chains = 37;  // not a multiple of the block width
  spec.rounds = 40;
  spec.burn_in = 10;
  spec.seed = 2026;
  spec.threads = threads;
  return spec;
}

void expect_same_moments(const MomentEstimate& a, const MomentEstimate& b) {
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.mean_mcse, b.mean_mcse);
  EXPECT_EQ(a.mean_cov, b.mean_cov);
  EXPECT_EQ(a.cov, b.cov);
  EXPECT_EQ(a.ess, b.ess);
  EXPECT_EQ(a.rhat, b.rhat);
  EXPECT_EQ(a.cov_mcse, b.cov_mcse);
  EXPECT_EQ(a.samples, b.samples);
}

// Statement: the twin changes no statistic of x (mean, mean_mcse, cov, …, the final state), on
// one and on two threads. Decision: exact equality.
TEST(SimulateTwin, StatisticsOfXAreThoseOfAPlainRun) {
  const auto lg = verify::logistic(3, 4, 30, 1);
  for (const Algorithm algorithm : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(theory::to_string(algorithm) + " threads " + std::to_string(threads));
      SimulationSpec spec = spec_of(algorithm, 2, threads);
      const SimulationResult plain = simulate(lg, spec);
      spec.linearised_twin = true;
      const SimulationResult twin = simulate(lg, spec);
      ASSERT_FALSE(plain.diverged);
      ASSERT_FALSE(twin.diverged);
      EXPECT_FALSE(plain.twin_difference.has_value());
      ASSERT_TRUE(twin.twin_difference.has_value());
      expect_same_moments(plain.moments, twin.moments);
      EXPECT_EQ(plain.final_state, twin.final_state);
      EXPECT_EQ(plain.chain_steps, twin.chain_steps);
    }
  }
}

// Statement: same seed ⇒ the same statistics of x − y on 1 and 2 threads. Decision: equality.
TEST(SimulateTwin, DifferenceIsBitIdenticalOnOneAndTwoThreads) {
  const auto lg = verify::logistic(3, 4, 30, 2);
  for (const Algorithm algorithm : {Algorithm::fedavg, Algorithm::scaffold}) {
    SCOPED_TRACE(theory::to_string(algorithm));
    SimulationSpec spec = spec_of(algorithm, 3, 1);
    spec.linearised_twin = true;
    const SimulationResult one = simulate(lg, spec);
    spec.threads = 2;
    const SimulationResult two = simulate(lg, spec);
    ASSERT_TRUE(one.twin_difference && two.twin_difference);
    expect_same_moments(*one.twin_difference, *two.twin_difference);
    // The twin does move: x − y is not 0 on a problem with a third derivative.
    EXPECT_GT(one.twin_difference->cov.diagonal().minCoeff(), 0.0);
  }
}

// Statement: on a quadratic the twin is the chain (THEORY (L3)): the mean of x − y and its MCSE are
// exactly 0. Decision: exact equality.
TEST(SimulateTwin, OnAQuadraticTheDifferenceIsExactlyZero) {
  const auto q = verify::quadratic(3, 3, 1.0);
  for (const Algorithm algorithm : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    SCOPED_TRACE(theory::to_string(algorithm));
    SimulationSpec spec = spec_of(algorithm, 2, 2);
    spec.linearised_twin = true;
    const SimulationResult r = simulate(q, spec);
    ASSERT_TRUE(r.twin_difference.has_value());
    EXPECT_EQ(r.twin_difference->mean, Vector::Zero(3));
    EXPECT_EQ(r.twin_difference->mean_mcse, Vector::Zero(3));
  }
}

}  // namespace
}  // namespace fedverify::estimators
