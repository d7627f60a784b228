// The round registry (estimators/samplers/round.hpp): every algorithm's round is registered under
// its name, an unknown name is an input error naming --algo, an injected round replaces the
// registered one.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/round.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::options;
using verify::quadratic;

// Every algorithm's round is registered under theory::to_string(algorithm); an unknown name is an
// input error naming --algo; an injected round replaces the registered one.
TEST(Engine, RoundsAreRegisteredByAlgorithmName) {
  for (const Algorithm a : {Algorithm::sgd, Algorithm::fedavg, Algorithm::scaffold,
                            Algorithm::fedrr, Algorithm{"fedopt"}, Algorithm{"feddyn"}}) {
    EXPECT_NE(RoundRegistry::find(theory::to_string(a)), nullptr) << theory::to_string(a);
  }
  const std::vector<std::string> names = RoundRegistry::names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "scaffold"), names.end());
  EXPECT_EQ(RoundRegistry::find("no-such-algorithm"), nullptr);
  try {
    RoundRegistry::get("no-such-algorithm");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--algo"), std::string::npos) << e.what();
  }
  const auto q = quadratic(3, 3, 1.0);
  SamplerOptions injected = options(Algorithm::scaffold, 0.1, 3);
  injected.round = std::make_shared<ScaffoldRound<StandardScaffold>>();
  ChainEnsemble a(q, injected, Vector::Zero(3), 11);
  ChainEnsemble b(q, options(Algorithm::scaffold, 0.1, 3), Vector::Zero(3), 11);
  a.advance(3, 1, {});
  b.advance(3, 1, {});
  EXPECT_EQ(a.stacked_state(), b.stacked_state());
  EXPECT_EQ(&a.round(), injected.round.get());
}

}  // namespace
}  // namespace fedverify::estimators
