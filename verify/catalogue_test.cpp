// The claim catalogue (verify/claims/): every claim file registers itself (register_claim), and
// catalogue() returns the claims in their declared report order. The order and the ids are a
// public contract (results.json, the committed baseline), so they are pinned here: a claim file
// that is not linked, registers twice, or declares another position fails this test.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims {
namespace {

TEST(Catalogue, HasEveryClaimInReportOrder) {
  const std::vector<std::string> expected = {
      "quadratic.exact-remainder-order",
      "quadratic.scaffold-unbiased",
      "quadratic.scaffold-control-variate-covariance",
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

// Row seeds (kit::row_seed): a pure function of (run seed, claim id, row key) — the same inputs
// give the same seed in any order of calls — and any change of an input gives another seed,
// including moving a byte across the id/key boundary. The first value is pinned: results.json
// and the baseline record seeds, so the hash must not change silently (the value was computed
// by an independent implementation of the mix documented in kit.hpp).
constexpr std::uint64_t kPinnedRowSeed = 3943545061596912438ULL;

TEST(RowSeed, DeterministicDistinctAndPinned) {
  const std::uint64_t a = kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row");
  EXPECT_EQ(a, kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row"));
  EXPECT_NE(a, kit::row_seed(20261126, "quadratic.simulated-vs-exact", "row"));
  EXPECT_NE(a, kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row "));
  EXPECT_NE(kit::row_seed(1, "ab", "c"), kit::row_seed(1, "a", "bc"));
  EXPECT_EQ(a, kPinnedRowSeed);
}

}  // namespace
}  // namespace fedverify::claims
