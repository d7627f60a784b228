// Tests of the decision of claim optimisers.study-no-single-best on planted study tables: the
// claim holds when every configuration is beaten somewhere, fails when one configuration is
// planted to be best on every data set, and is inconclusive with one data set or with ties.
#include "verify/claims/optimisers/study_no_single_best.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "estimators/statistics/moments.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

// Five seeds; seed s adds a common shift (shared by every configuration: common random numbers)
// and a small configuration-specific wobble, so the paired differences have se ≈ 1e-3.
DatasetResult table(const std::string& name, const std::vector<double>& means) {
  DatasetResult d;
  d.name = name;
  for (std::size_t c = 0; c < means.size(); ++c) {
    ConfigResult r;
    r.index = static_cast<int>(c) + 1;
    for (int s = 0; s < 5; ++s) {
      const int wobble = ((s + 1) * (r.index + 1)) % 3 - 1;  // −1, 0 or 1
      r.test_loss.push_back(means[c] + 0.05 * s + 1e-3 * wobble);
    }
    r.loss = estimators::replicated_mean(r.test_loss);
    d.configs.push_back(r);
  }
  return d;
}

TEST(StudyNoSingleBest, HoldsWhenTheWinnerChangesWithTheDataSet) {
  const auto d = decide_no_single_best(
      {table("a", {0.30, 0.40, 0.50, 0.60}), table("b", {0.60, 0.30, 0.40, 0.50})}, 0.05);
  EXPECT_EQ(d.verdict, estimators::Ordering::holds);
  EXPECT_TRUE(d.unbeaten.empty());
  EXPECT_EQ(d.best_by_dataset, (std::vector<int>{1, 2}));
}

// The planted perturbation: configuration 1 is 0.1 better than every other on both data sets.
TEST(StudyNoSingleBest, FailsWhenOneConfigurationIsBestEverywhere) {
  const auto d = decide_no_single_best(
      {table("a", {0.30, 0.40, 0.50, 0.60}), table("b", {0.20, 0.30, 0.40, 0.50})}, 0.05);
  EXPECT_EQ(d.verdict, estimators::Ordering::fails);
  EXPECT_EQ(d.dominant, (std::vector<int>{1}));
}

TEST(StudyNoSingleBest, InconclusiveWithOneDataSetOrWithTies) {
  const auto one = decide_no_single_best({table("a", {0.30, 0.40, 0.50})}, 0.05);
  EXPECT_EQ(one.verdict, estimators::Ordering::inconclusive);  // "across tasks" needs two
  EXPECT_EQ(one.dominant, (std::vector<int>{1}));
  const auto tie =
      decide_no_single_best({table("a", {0.30, 0.30, 0.50}), table("b", {0.30, 0.30, 0.40})}, 0.05);
  EXPECT_EQ(tie.verdict, estimators::Ordering::inconclusive);
  EXPECT_EQ(tie.unbeaten, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace fedverify::claims::optimisers::study
