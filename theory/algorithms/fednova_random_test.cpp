// FedNova and FedAvg with random local steps (THEORY (A2c), theory/algorithms/fednova_random.cpp):
//  - every K_c = 1 is the fixed-steps law (unequal_steps_exact with H_c = 1): 1e-12;
//  - the enumeration's law equals the moment recursion iterated round by round from x*, every
//    draw's M S Mᵀ + γG summed explicitly (no Kronecker products), until it stops moving: 1e-10
//    relative (the iteration's own stopping error is below 1e-13);
//  - (A2c): as γ halves, plain FedAvg's distance to x̃_E and FedNova's to x* halve (ratios in
//    [0.4, 0.6] at γLK_max ≤ 0.02, where the O(γ²) part is below 20 % of the distance), and plain
//    FedAvg's mean is not near the largest steps' surrogate;
//  - refusals: too many joint draws (naming --client-steps) and linear-sa (naming --random-steps).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/fednova.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

RunSetting random_setting(double gamma, std::vector<double> bounds) {
  RunSetting s{gamma, 1};
  s.parameters[std::string(kClientStepsKey)] = std::move(bounds);
  s.parameters[std::string(kRandomStepsKey)] = {1.0};
  return s;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / b.norm(); }

TEST(FednovaRandomSteps, SingleStepBoundsAreTheFixedLaw) {
  const auto q = verify::quadratic(2, 3, 1.0);
  const RunSetting s = random_setting(0.05, {1, 1, 1});
  RunSetting fixed = s;
  fixed.parameters.erase(std::string(kRandomStepsKey));
  for (const auto a : {UnequalStepsAggregation::plain, UnequalStepsAggregation::normalised}) {
    const ExactMoments r = random_steps_exact(q, s, a);
    const ExactMoments f = unequal_steps_exact(q, fixed, a);
    EXPECT_LT((r.mean - f.mean).norm() / f.mean.norm(), 1e-12);
    EXPECT_LT(relative(r.cov, f.cov), 1e-12);
  }
}

TEST(FednovaRandomSteps, EnumerationEqualsTheIteratedMomentRecursion) {
  const auto q = verify::quadratic(2, 3, 1.0);
  const std::vector<double> bounds = {2, 3, 2};
  const RunSetting s = random_setting(0.1 / q.smoothness(), bounds);
  for (const auto a : {UnequalStepsAggregation::plain, UnequalStepsAggregation::normalised}) {
    // Every draw's round map, with its probability.
    std::vector<AffineRoundMap> maps;
    for (int h0 = 1; h0 <= 2; ++h0) {
      for (int h1 = 1; h1 <= 3; ++h1) {
        for (int h2 = 1; h2 <= 2; ++h2) {
          RunSetting fixed{s.gamma, 1};
          fixed.parameters[std::string(kClientStepsKey)] = {double(h0), double(h1), double(h2)};
          maps.push_back(unequal_steps_round_map(q, fixed, a));
        }
      }
    }
    Vector m = minimizer(q);
    Matrix second = m * m.transpose();  // E[xxᵀ]
    for (int t = 0; t < 200000; ++t) {
      Vector m_next = Vector::Zero(2);
      Matrix second_next = Matrix::Zero(2, 2);
      for (const AffineRoundMap& map : maps) {
        const Matrix mt = map.transition();
        const Vector r = s.gamma * map.r;
        m_next += (mt * m + r) / maps.size();
        second_next += (mt * second * mt.transpose() + mt * m * r.transpose() +
                        r * m.transpose() * mt.transpose() + r * r.transpose() + s.gamma * map.g) /
                       maps.size();
      }
      const double change = (second_next - second).norm();
      m = m_next;
      second = second_next;
      if (change < 1e-18) break;
    }
    const ExactMoments exact = random_steps_exact(q, s, a);
    EXPECT_LT((exact.mean - m).norm() / m.norm(), 1e-10);
    EXPECT_LT(relative(exact.cov, second - m * m.transpose()), 1e-10);
  }
}

TEST(FednovaRandomSteps, MeansTendToTheExpectedStepsSurrogateAndToTheOptimum) {
  const auto q = verify::quadratic(2, 3, 1.0);
  const std::vector<double> bounds = {2, 4, 8};
  const Vector x_star = minimizer(q);
  const Vector target = expected_steps_surrogate(q, random_setting(1.0, bounds));
  std::vector<double> plain, nova;
  for (const double glk : {0.02, 0.01, 0.005}) {
    const RunSetting s = random_setting(glk / (q.smoothness() * 8), bounds);
    plain.push_back(
        (random_steps_exact(q, s, UnequalStepsAggregation::plain).mean - target).norm());
    nova.push_back(
        (random_steps_exact(q, s, UnequalStepsAggregation::normalised).mean - x_star).norm());
  }
  for (const auto* d : {&plain, &nova}) {
    EXPECT_GT((*d)[1] / (*d)[0], 0.4);
    EXPECT_LT((*d)[1] / (*d)[0], 0.6);
    EXPECT_GT((*d)[2] / (*d)[1], 0.4);
    EXPECT_LT((*d)[2] / (*d)[1], 0.6);
  }
  const Vector largest = surrogate_optimum(q, random_setting(1.0, bounds));
  EXPECT_GT((largest - target).norm(), 10 * plain.back());
}

TEST(FednovaRandomSteps, Refusals) {
  const auto q = verify::quadratic(2, 3, 1.0);
  try {
    (void)random_steps_exact(q, random_setting(0.01, {100, 100, 100}),
                             UnequalStepsAggregation::normalised);
    ADD_FAILURE() << "10⁶ draws enumerated";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--client-steps", 0), 0U) << e.what();
  }
}

}  // namespace
}  // namespace fedverify::theory
