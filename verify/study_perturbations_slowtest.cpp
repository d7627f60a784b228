// The planted perturbation of each finding claim of the optimiser study (optimisers.study-*):
// the optimiser the finding says wins is frozen (its update rule leaves the iterate where it is;
// for FedExP the server step), in every configuration of Table 2.2 that uses it, through the
// study's rule hook (StudyOptions::rule_override). Every configuration it is compared with still
// learns, so the finding's verdict must turn to "fails" (some simultaneous interval of the paired
// loss differences lies above 0) and its row must fail. Small study: breast-cancer, the
// configurations the finding compares, 12 rounds, 4 evaluation seeds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "estimators/samplers/optimisers/update_rule.hpp"
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

class Frozen final : public estimators::UpdateRule {
 public:
  void update(int /*dim*/, int /*columns*/, int /*active*/, long /*t*/, double* /*x*/,
              const double* /*g*/, const estimators::RuleState& /*state*/) const override {}
};

class StudyPerturbation : public ::testing::TestWithParam<std::string> {};

TEST_P(StudyPerturbation, FreezingTheWinnerRefutesTheFinding) {
  const Finding& f = finding(GetParam());
  StudyOptions o;
  o.datasets = {"breast-cancer"};
  o.rounds = 12;
  o.seeds = 4;
  o.seed = 7;
  for (const auto& [a, b] : f.pairs) {
    o.configs.push_back(a);
    o.configs.push_back(b);
  }
  std::sort(o.configs.begin(), o.configs.end());
  o.configs.erase(std::unique(o.configs.begin(), o.configs.end()), o.configs.end());
  const std::string winner = f.winner;
  o.rule_override =
      [winner](const std::string& name) -> std::shared_ptr<const estimators::UpdateRule> {
    if (name == winner) return std::make_shared<Frozen>();
    return nullptr;
  };
  const StudyResult planted = run_study(o);
  const Row row = finding_row(planted.datasets[0], f);
  fmt::print("{} with {} frozen: {} | {}\n", GetParam(), winner, row.measured,
             row.data["pairs"].dump());
  EXPECT_EQ(row.data["verdict"], "fails") << row.measured;
  EXPECT_FALSE(row.passed);
}

// "optimisers.study-adam-vs-adaptive-lr" → "study_adam_vs_adaptive_lr".
std::string test_name(const ::testing::TestParamInfo<std::string>& param) {
  std::string s = param.param.substr(param.param.find('.') + 1);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(Findings, StudyPerturbation, ::testing::ValuesIn(finding_ids()),
                         test_name);

}  // namespace
}  // namespace fedverify::claims::optimisers::study
