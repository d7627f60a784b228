// The optimiser study's bookkeeping (study_common.hpp): Table 2.2 as printed in the thesis, the
// pairs each finding compares, the step grids, and the three-way verdict of a finding on
// hand-made losses (holds; fails when the two optimisers' labels are swapped — the planted
// perturbation of every finding claim; inconclusive under noise).
#include <gtest/gtest.h>

#include <algorithm>

#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

TEST(Study, TableTwoPointTwoAsPrinted) {
  const auto& t = table_2_2();
  ASSERT_EQ(t.size(), 48u);
  // Spot checks against the thesis's Table 2.2 (index, server, client).
  const std::vector<TableConfig> printed = {
      {1, "sgd", "sgd"},      {2, "sgd", "prox"},         {3, "sgd", "scaffold"},
      {4, "adam", "adam"},    {10, "rmsprop", "rmsprop"}, {14, "prodigy", "prodigy"},
      {15, "adam", "sgd"},    {20, "adadelta", "sgd"},    {22, "adagrad", "sgd"},
      {25, "prodigy", "sgd"}, {26, "sgd", "adam"},        {33, "sgd", "adagrad"},
      {36, "sgd", "prodigy"}, {37, "exp", "sgd"},         {38, "exp", "adam"},
      {44, "exp", "rmsprop"}, {48, "exp", "prodigy"}};
  for (const auto& p : printed) {
    EXPECT_EQ(config(p.index).server, p.server) << p.index;
    EXPECT_EQ(config(p.index).client, p.client) << p.index;
  }
  for (int i = 1; i <= 48; ++i) EXPECT_EQ(config(i).index, i);
  EXPECT_TRUE(tunes_server(config(4)));
  EXPECT_TRUE(tunes_server(config(15)));
  EXPECT_FALSE(tunes_server(config(26)));
  EXPECT_FALSE(tunes_server(config(40)));
}

TEST(Study, FindingsCompareEveryFamilyWithBothOptimisers) {
  using Pairs = std::vector<std::pair<int, int>>;
  EXPECT_EQ(paired_configs("dowg", "dog"), (Pairs{{12, 13}, {23, 24}, {34, 35}, {46, 47}}));
  EXPECT_EQ(paired_configs("adam", "adagrad"), (Pairs{{4, 11}, {15, 22}, {26, 33}, {38, 45}}));
  const Pairs exp = paired_configs("exp", "sgd");
  ASSERT_EQ(exp.size(), 12u);
  EXPECT_EQ(exp.front(), std::make_pair(37, 1));
  EXPECT_EQ(exp.back(), std::make_pair(48, 36));
  for (const auto& [a, b] : exp) EXPECT_EQ(config(a).client, config(b).client);
}

TEST(Study, GridsHaveFourIncreasingSteps) {
  for (const auto& c : table_2_2()) {
    const bool server = tunes_server(c);
    const auto g = step_grid(server ? c.server : c.client, server);
    EXPECT_EQ(g.size(), 4u) << c.label();
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end())) << c.label();
    EXPECT_GT(g.front(), 0.0) << c.label();
  }
}

// Losses of configurations 1 (better) and 26, 27 over 6 seeds: `better` lower by `gap` on every
// seed up to ± noise.
DatasetResult hand_made(double gap, double noise) {
  DatasetResult d;
  d.name = "hand";
  d.initial_loss = std::log(2.0);
  const std::vector<double> jitter = {0.3, -0.2, 0.1, -0.4, 0.25, -0.05};
  for (const int index : {1, 26, 27}) {
    ConfigResult c;
    c.index = index;
    for (std::size_t s = 0; s < jitter.size(); ++s) {
      const double base = 0.5 + 0.01 * static_cast<double>(s);  // a seed effect shared by all
      const double own =
          index == 1 ? -gap : noise * jitter[(s + static_cast<std::size_t>(index)) % jitter.size()];
      c.test_loss.push_back(base + own);
    }
    d.configs.push_back(c);
  }
  return d;
}

TEST(Study, FindingVerdictHoldsFailsWhenSwappedAndIsInconclusiveUnderNoise) {
  const Finding right{"first is best", {{1, 26}, {1, 27}}, "sgd"};
  const Finding swapped{"first is worst", {{26, 1}, {27, 1}}, "adam"};
  const DatasetResult clear = hand_made(0.1, 0.01);
  EXPECT_EQ(decide_finding(clear, right).verdict, estimators::Ordering::holds);
  EXPECT_EQ(decide_finding(clear, swapped).verdict, estimators::Ordering::fails);
  const Row held = finding_row(clear, right);
  EXPECT_TRUE(held.passed);
  EXPECT_TRUE(held.equivalence.confirmed);
  EXPECT_EQ(held.data["verdict"], "holds");
  const Row refuted = finding_row(clear, swapped);
  EXPECT_FALSE(refuted.passed);
  EXPECT_EQ(refuted.data["pairs"].size(), 2u);
  // Noise as large as the gap: the simultaneous intervals straddle 0.
  const DatasetResult noisy = hand_made(0.02, 0.2);
  EXPECT_EQ(decide_finding(noisy, right).verdict, estimators::Ordering::inconclusive);
  const Row open = finding_row(noisy, right);
  EXPECT_TRUE(open.passed);
  EXPECT_FALSE(open.equivalence.confirmed);
}

}  // namespace
}  // namespace fedverify::claims::optimisers::study
