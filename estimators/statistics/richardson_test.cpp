// Richardson extrapolation over the step size (estimators/statistics/richardson.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "estimators/statistics/richardson.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {
namespace {

// Statement: data exactly v₀ + cγ^p are extrapolated to v₀ (two and three steps, p = ½ and 1);
// the weights sum to 1 and annihilate γ^p. Tolerance: a few roundings of O(1) terms times the
// weights' size (|w| ≤ 4 here): 64 ε.
TEST(Richardson, ExactForTheModel) {
  constexpr double kTolerance = 64 * 2.220446049250313e-16;
  for (const double p : {0.5, 1.0}) {
    for (const std::vector<double>& steps :
         {std::vector<double>{0.01, 0.02}, std::vector<double>{0.01, 0.03, 0.1}}) {
      std::vector<ReplicatedMean> v;
      for (const double g : steps) v.push_back({-0.025 + 0.4 * std::pow(g, p), 1e-3 * (1 + g), 0});
      const RichardsonEstimate r = richardson_extrapolate(steps, v, p);
      EXPECT_NEAR(r.value, -0.025, kTolerance);
      double sum = 0, moment = 0;
      for (std::size_t k = 0; k < steps.size(); ++k) {
        sum += r.weights[k];
        moment += r.weights[k] * std::pow(steps[k], p);
      }
      EXPECT_NEAR(sum, 1.0, kTolerance);
      EXPECT_NEAR(moment, 0.0, kTolerance);
    }
  }
}

// Statement: with two steps at ratio 2 and p = 1 it is 2v̂(γ) − v̂(2γ) with standard error
// √(4s₁² + s₂²) (THEORY §8's 2·b(γ)/γ − b(2γ)/(2γ)). Tolerance: 4 ε relative.
TEST(Richardson, TwoStepsIsTheClassicalFormula) {
  const RichardsonEstimate r =
      richardson_extrapolate({0.05, 0.1}, {{1.0, 0.3, 0}, {1.5, 0.4, 0}}, 1.0);
  EXPECT_NEAR(r.value, 0.5, 4 * 2.2e-16);
  EXPECT_NEAR(r.std_error, std::sqrt(4 * 0.09 + 0.16), 4 * 2.2e-16);
}

// Statement: bad input is refused naming the argument.
TEST(Richardson, RefusesBadInput) {
  EXPECT_THROW(richardson_extrapolate({0.1}, {{1, 1, 0}}, 1.0), InputError);
  EXPECT_THROW(richardson_extrapolate({0.1, 0.1}, {{1, 1, 0}, {1, 1, 0}}, 1.0), InputError);
  EXPECT_THROW(richardson_extrapolate({0.1, 0.2}, {{1, 1, 0}, {1, 1, 0}}, 0.0), InputError);
  EXPECT_THROW(richardson_extrapolate({0.1, 0.2, 0.3}, {{1, 1, 0}, {1, 0, 0}, {1, 1, 0}}, 1.0),
               InputError);
}

}  // namespace
}  // namespace fedverify::estimators
