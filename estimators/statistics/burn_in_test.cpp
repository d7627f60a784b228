// The burn-in rule of estimators/statistics/burn_in.hpp at hand-checkable points.
#include <gtest/gtest.h>

#include <cmath>

#include "estimators/statistics/burn_in.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {
namespace {

// Burn-in rule: B is the least t with ρ^t D₀ ≤ fraction·scale (THEORY F1 gives ρ).
TEST(BurnIn, LeastRoundCountReachingTheTarget) {
  const BurnInRule rule{
      .contraction = 0.95, .initial_distance = 30.0, .scale = 2.0, .fraction = 0.01};
  const int b = burn_in_rounds(rule);
  const double target = rule.fraction * rule.scale;
  EXPECT_LE(std::pow(rule.contraction, b) * rule.initial_distance, target);
  EXPECT_GT(std::pow(rule.contraction, b - 1) * rule.initial_distance, target);
  EXPECT_EQ(burn_in_rounds({.contraction = 0.5, .initial_distance = 0.01, .scale = 2.0}), 0);
  EXPECT_THROW(burn_in_rounds({.contraction = 1.0, .initial_distance = 1, .scale = 1}), InputError);
  EXPECT_THROW(burn_in_rounds({.contraction = 0.5, .initial_distance = -1, .scale = 1}),
               InputError);
  EXPECT_THROW(burn_in_rounds({.contraction = 0.5, .initial_distance = 1, .scale = 0}), InputError);
  EXPECT_DOUBLE_EQ(burn_in_fraction_for(10000.0), 0.001);
}

}  // namespace
}  // namespace fedverify::estimators
