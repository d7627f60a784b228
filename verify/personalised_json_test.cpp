// The JSON of the personalised family's runs (reports/runs/personalised_json.hpp): predict has the
// contract fields and defaults to p*; simulate echoes the algorithm and the participation and
// refuses options an algorithm does not read, naming the flag. Problems from
// verify/claims/problems/personalised_problems.hpp.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "reports/runs/personalised_json.hpp"
#include "theory/algorithms/l2gd.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/l2gd_parameters.hpp"
#include "theory/problems/personalised_objective.hpp"
#include "verify/claims/problems/personalised_problems.hpp"

namespace fedverify {
namespace {

using claims::make_logistic;
using claims::make_quadratic;
using theory::CompressorKind;

// A run setting with λ (and p when given) as the personalised runner's, resolved as it is.
theory::L2gdSetting setting_of(const theory::Problem& problem, double lambda,
                               std::optional<double> p, double alpha) {
  theory::RunSetting run;
  run.gamma = alpha;
  run.parameters[std::string(theory::kLambdaKey)] = {lambda};
  if (p) run.parameters[std::string(theory::kAveragingProbabilityKey)] = {*p};
  return theory::l2gd_setting(run, problem);
}

TEST(PersonalisedJson, PredictHasTheContractFieldsAndDefaultsToPStar) {
  const auto q = make_quadratic(3, 2, 0.2, 1.0, 22);
  const auto j = reports::predict_l2gd(q, setting_of(q, 0.5, std::nullopt, 0.2));
  for (const char* field : {"x_lambda", "p_star", "alpha_max", "rate", "sigma2", "neighbourhood",
                            "mse_exact", "mse_bound"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["x_lambda"].size(), 3u);
  EXPECT_EQ(j["x_lambda"][0].size(), 2u);
  EXPECT_EQ(j["mse_exact"].size(), 101u);
  EXPECT_DOUBLE_EQ(j["p"].get<double>(), 0.5 / (0.5 + q.smoothness()));
  EXPECT_THROW(setting_of(q, -1, 0.5, 0.1), InputError);
  EXPECT_THROW(setting_of(q, 1, 1.5, 0.1), InputError);
  EXPECT_THROW(reports::predict_l2gd(q, {1, 1.5, 0.1}), InputError);
  // p within 1e-12 of 0 or 1 is refused (the rates divide by p and 1 - p); 1e-9 is not.
  EXPECT_THROW(setting_of(q, 1, 1e-13, 0.1), InputError);
  EXPECT_NO_THROW(setting_of(q, 1, 1e-9, 0.1));
  EXPECT_THROW(reports::parse_compressor("random-k:x", "--uplink"), InputError);
  const auto lg = make_logistic(2, 10, 2, 0.1, 23);
  EXPECT_FALSE(reports::predict_l2gd(lg, setting_of(lg, 0.5, 0.4, 0.2)).contains("mse_exact"));
}

// simulate JSON for the new options: algorithm and participation echoed, participations = τ·rounds;
// l2sgd+ refuses compressors and partial participation, unknown algorithms name --algo.
TEST(PersonalisedJson, SimulateAcceptsL2sgdPlusAndPartialParticipation) {
  const auto lg = make_logistic(3, 10, 2, 0.1, 24);
  reports::L2gdSimulateOptions o;
  o.setting = setting_of(lg, 0.5, std::nullopt, 0.1);
  o.chains = 4;
  o.iterations = 20;
  o.algorithm = "l2sgd+";
  const auto plus = reports::simulate_l2gd(lg, o);
  EXPECT_EQ(plus["algorithm"], "l2sgd+");
  EXPECT_EQ(plus["mse"].size(), 21u);
  EXPECT_EQ(plus["participating"], 3);
  o.algorithm = "l2gd";
  o.participating = 2;
  const auto partial = reports::simulate_l2gd(lg, o);
  EXPECT_DOUBLE_EQ(partial["participations"].get<double>(), 2 * partial["rounds"].get<double>());
  const auto names = [&](const char* field) {
    try {
      reports::simulate_l2gd(lg, o);
    } catch (const InputError& e) {
      return std::string(e.what()).find(field) != std::string::npos;
    }
    return false;
  };
  o.algorithm = "l2sgd+";
  EXPECT_TRUE(names("--participating"));
  o.participating = 0;
  o.uplink = {CompressorKind::natural, 0};
  EXPECT_TRUE(names("--uplink"));
  o.algorithm = "fedl2";
  EXPECT_TRUE(names("--algo"));
}

}  // namespace
}  // namespace fedverify
