// Tests of claim optimisers.study-client-epsilon's configurations and of its row on planted
// tables: the ε variants are configurations 26–33 again (the client optimisers with an ε key), and
// a planted table in which tuning ε made one client worse on every seed fails the row.
#include <gtest/gtest.h>

#include "estimators/statistics/moments.hpp"
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

TEST(StudyClientEpsilon, VariantsAreTheClientsWithAnEpsilon) {
  const auto& v = epsilon_variants();
  ASSERT_EQ(v.size(), 8U);
  const std::vector<std::string> clients = {"adam",   "nadam",    "radam",   "amsgrad",
                                            "adamax", "adadelta", "rmsprop", "adagrad"};
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].index, 49 + static_cast<int>(i));
    EXPECT_EQ(v[i].server, "sgd");
    EXPECT_EQ(v[i].client, clients[i]);
    EXPECT_TRUE(v[i].tune_epsilon);
    EXPECT_EQ(config(26 + static_cast<int>(i)).client, clients[i]);  // its Table 2.2 counterpart
  }
  EXPECT_EQ(config(49).label(), "#49 sgd/adam, ε tuned");
  EXPECT_THROW(config(57), std::logic_error);
  // Table 2.2 and its findings never see the variants.
  EXPECT_EQ(table_2_2().size(), 48U);
  for (const auto& [a, b] : paired_configs("adam", "rmsprop")) {
    EXPECT_LE(a, 48);
    EXPECT_LE(b, 48);
  }
}

ConfigResult planted(int index, double mean) {
  ConfigResult r;
  r.index = index;
  for (int s = 0; s < 5; ++s) r.test_loss.push_back(mean + 0.05 * s + 1e-3 * (s % 2));
  r.loss = estimators::replicated_mean(r.test_loss);
  return r;
}

TEST(StudyClientEpsilon, ATunedEpsilonThatHurtsFailsTheRow) {
  DatasetResult d;
  d.name = "planted";
  d.initial_loss = 0.69;
  d.configs = {planted(26, 0.30), planted(49, 0.25), planted(27, 0.30), planted(50, 0.35)};
  Finding f{"Tuning the clients' ε lowers the test loss", {{49, 26}, {50, 27}}, "eps"};
  EXPECT_FALSE(finding_row(d, f).passed);  // #50 is 0.05 worse on every seed
  d.configs[3] = planted(50, 0.20);
  EXPECT_TRUE(finding_row(d, f).passed);
  EXPECT_EQ(finding_row(d, f).data["verdict"], "holds");
}

}  // namespace
}  // namespace fedverify::claims::optimisers::study
