// The claim catalogue (verify/claims/): every claim file registers itself (register_claim), and
// catalogue() returns the claims in their declared report order. The order and the ids are a
// public contract (results.json, the committed baseline), so they are pinned here: a claim file
// that is not linked, registers twice, or declares another position fails this test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "verify/claims/claim.hpp"

namespace fedverify::claims {
namespace {

TEST(Catalogue, HasEveryClaimInReportOrder) {
  const std::vector<std::string> expected = {
      "quadratic.exact-remainder-order",
      "quadratic.scaffold-unbiased",
      "quadratic.scaffold-control-variate-covariance",
      "quadratic.remainder-h-exponent",
      "quadratic.scaffold-weighted-contraction",
      "quadratic.simulated-vs-exact",
      "dynamics.linear-speedup",
      "dynamics.linear-speedup-logistic",
      "dynamics.scaffold-bound-shape",
      "dynamics.w2-contraction",
      "dynamics.stationary-gaussian",
      "logistic.fedavg-stochastic-bias",
      "logistic.bias-decomposition",
      "logistic.scaffold-bias",
      "logistic.fedrr-order",
      "logistic.stochastic-bias-scaling",
      "logistic.scaffold-higher-order-bias",
      "logistic.stochastic-bias-second-order",
      "heterogeneity.average-drift",
      "personalised.l2gd-rate",
      "personalised.communication",
      "personalised.optimum-limits",
      "maps.contraction",
      "maps.first-order-accuracy",
      "maps.fedavg-large-h",
      "maps.adversarial",
  };
  std::vector<std::string> ids;
  for (const auto& c : catalogue()) ids.push_back(c.id);
  EXPECT_EQ(ids, expected);
  for (const auto& c : catalogue()) {
    EXPECT_TRUE(c.run) << c.id << " has no run function";
    EXPECT_FALSE(c.statement.empty() || c.formula.empty() || c.theory_label.empty() ||
                 c.decision_rule.empty())
        << c.id;
  }
}

}  // namespace
}  // namespace fedverify::claims
