// The claim catalogue (verify/claims/): every claim file registers itself (register_claim), and
// catalogue() returns the claims in their declared report order. The order and the ids are a
// public contract (results.json, the committed baseline), so they are pinned here: a claim file
// that is not linked, registers twice, or declares another position fails this test.
#include <gtest/gtest.h>

#include <string>
#include <utility>
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
      "dynamics.finite-time-bounds",
      "dynamics.gradient-complexity",
      "dynamics.gradient-complexity-logistic",
      "dynamics.polyak-ruppert",
      "logistic.fedavg-stochastic-bias",
      "logistic.bias-decomposition",
      "logistic.scaffold-bias",
      "logistic.fedrr-order",
      "logistic.stochastic-bias-scaling",
      "logistic.scaffold-higher-order-bias",
      "logistic.stochastic-bias-second-order",
      "logistic.fedavg-bias-research",
      "logistic.scaffold-bias-research",
      "logistic.fedrr-research",
      "linear-sa.remainder-order",
      "linear-sa.fedavg-exact-mean",
      "linear-sa.scaffold-td-unbiased",
      "heterogeneity.average-drift",
      "heterogeneity.weighted-clients",
      "personalised.l2gd-rate",
      "personalised.communication",
      "personalised.optimum-limits",
      "personalised.communication-limits",
      "personalised.local-gd-myth",
      "personalised.variance-reduced",
      "personalised.compressed-l2gd",
      "personalised.local-methods-perm",
      "personalised.fedper",
      "maps.contraction",
      "maps.first-order-accuracy",
      "maps.fedavg-large-h",
      "maps.adversarial",
      "maps.server-stability",
      "maps.fedgda-stability",
      "maps.td-stability",
      "optimisers.server-step-momentum",
      "optimisers.server-stability",
      "optimisers.fedprox-bias",
      "optimisers.client-sampling",
      "optimisers.fedexp",
      "optimisers.adaptive-server",
      "optimisers.server-step-logistic",
      "optimisers.scaffold-sampling",
      "optimisers.server-step-research",
      "optimisers.feddyn",
      "optimisers.fednova",
      "optimisers.dp-fedavg",
      "optimisers.reshuffled-epochs",
      "optimisers.rfa",
      "optimisers.fednova-random-steps",
      "optimisers.feddyn-linear-sa",
      "optimisers.mime",
      "optimisers.study-table",
      "optimisers.study-dowg",
      "optimisers.study-adam-vs-adaptive-lr",
      "optimisers.study-adam-momentum-family",
      "optimisers.study-adagrad-family",
      "optimisers.study-fedexp",
      "optimisers.study-no-single-best",
      "optimisers.study-client-epsilon",
      "games.fedgda-bias",
      "games.client-epsilon",
      "games.gmm-identities",
      "games.linear-iv",
      "games.nonconvex-pl",
      "games.deepgmm-table",
      "games.deepgmm-on-par",
      "games.deepgmm-images",
  };
  std::vector<std::string> ids;
  for (const auto& c : catalogue()) ids.push_back(c.id);
  EXPECT_EQ(ids, expected);
  for (const auto& c : catalogue()) {
    EXPECT_TRUE(c.run) << c.id << " has no run function";
    EXPECT_EQ(c.family, section_title(c.order.section)) << c.id;
  }
}

// Every claim's card has every required field (catalogue() parses the cards and throws on a
// missing one; this states the requirement and names the claim and the field).
TEST(Catalogue, EveryCardHasEveryField) {
  for (const auto& c : catalogue()) {
    const std::vector<std::pair<const char*, const std::string*>> fields = {
        {"Statement", &c.card.statement},    {"Formula", &c.card.formula},
        {"THEORY", &c.card.theory_label},    {"Setting", &c.card.setting},
        {"Decision", &c.card.decision_rule}, {"Sample row", &c.card.sample_row}};
    for (const auto& [name, value] : fields) {
      EXPECT_FALSE(value->empty()) << c.id << ": " << name;
    }
    // The report's summary table gives each claim in one line (card.hpp, Summary): present, one
    // line of the table, and not the statement itself.
    EXPECT_FALSE(c.card.summary.empty()) << c.id << ": Summary";
    EXPECT_LE(c.card.summary.size(), 160u) << c.id << ": Summary longer than a line";
    EXPECT_NE(c.card.summary, c.card.statement) << c.id << ": Summary repeats the Statement";
    // A statistical claim declares its equivalence margin and why (issue 13); a deterministic
    // one has none.
    EXPECT_EQ(c.alpha > 0, !c.card.margin.empty()) << c.id << ": Margin, alpha " << c.alpha;
  }
}

// The opt-in groups (left out of the default report) are the optimiser study, the DeepGMM
// Table 3.1 group and the research grid of the b_s claims (ids ending in -research); the hypotheses
// (claims_slowtest does not require them to hold) are the study's claims but its table, and the
// Table 3.1 group.
TEST(Catalogue, OptInClaimsAreTheStudiesAndTheirFindingsAreHypotheses) {
  for (const auto& c : catalogue()) {
    const bool study = c.id.rfind("optimisers.study-", 0) == 0;
    const bool deepgmm = c.id.rfind("games.deepgmm", 0) == 0;
    const bool research = c.id.ends_with("-research");
    EXPECT_EQ(c.opt_in, study || deepgmm || research) << c.id;
    EXPECT_EQ(c.hypothesis, (study && c.id != "optimisers.study-table") || deepgmm) << c.id;
  }
}

// The study's table, its five findings and the no-single-best claim read one study computed once
// per process (kit::once_per_run), as does the ε claim its own (with the same protocol): they
// share a run name, so a report over MPI ranks keeps them on one rank. The Table 3.1 claim and its
// on-par comparisons share the DeepGMM study likewise; no other claims share a run.
TEST(Catalogue, TheStudyClaimsShareTheirRun) {
  int sharing = 0;
  for (const auto& c : catalogue()) {
    const bool study = c.id.rfind("optimisers.study-", 0) == 0;
    const bool deepgmm = c.id == "games.deepgmm-table" || c.id == "games.deepgmm-on-par";
    EXPECT_EQ(c.shared_run, study ? "optimisers.study" : (deepgmm ? "games.deepgmm" : "")) << c.id;
    sharing += study ? 1 : 0;
  }
  EXPECT_EQ(sharing, 8);
}

}  // namespace
}  // namespace fedverify::claims
