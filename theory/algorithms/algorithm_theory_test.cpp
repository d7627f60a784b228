// The algorithm registry as the built-in algorithms of theory/algorithms/ fill it: names in
// their declared order, descriptors, and dispatch of the closed forms by name
// (theory/algorithms/algorithm_theory.hpp over theory/problems/algorithm_registry.hpp); a new
// algorithm is reached by its name alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/fedrr.hpp"
#include "theory/algorithms/scaffold.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using theory::RunSetting;
using verify::chain_problem;
using verify::ChainCase;
using verify::kChainCases;

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto* d : theory::registered_algorithms()) names.emplace_back(d->name());
  return names;
}

TEST(AlgorithmRegistry, BuiltInsAreListedInTheirDeclaredOrder) {
  const std::vector<std::string> expected = {
      "sgd",      "fedavg", "fednova", "dpfedavg", "rfa",    "trimmed-mean",
      "scaffold", "feddyn", "mime",    "fedper",   "fedrr",  "fedopt",
      "l2gd",     "l2gd+",  "l2sgd",   "l2sgd+",   "l2sgd++"};
  std::vector<std::string> names = registered_names();
  ASSERT_GE(names.size(), expected.size());  // a test may have registered one more, after them
  names.resize(expected.size());
  EXPECT_EQ(names, expected);
}

TEST(AlgorithmRegistry, UnknownNameNamesTheFieldAndListsEveryAlgorithm) {
  try {
    theory::parse_algorithm("fedsgd", "settings.algo");
    FAIL() << "fedsgd was accepted";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("settings.algo: unknown algorithm \"fedsgd\"", 0), 0u) << message;
    for (const std::string& name : registered_names()) {
      EXPECT_NE(message.find(name), std::string::npos) << name << " missing from: " << message;
    }
  }
  EXPECT_THROW(theory::validate(theory::Algorithm{"fedsgd"}, {0.1, 1}), InputError);
}

TEST(AlgorithmRegistry, HandlesCompareByNameAndKeepTheEnumerationOrdinals) {
  using theory::Algorithm;
  EXPECT_EQ(theory::parse_algorithm("scaffold"), Algorithm::scaffold);
  EXPECT_NE(theory::parse_algorithm("fedavg"), Algorithm::sgd);
  EXPECT_EQ(theory::to_string(Algorithm::fedrr), "fedrr");
  // Seeds in the claims are derived from the former enumeration values.
  EXPECT_EQ(static_cast<int>(Algorithm::sgd), 0);
  EXPECT_EQ(static_cast<int>(Algorithm::fedavg), 1);
  EXPECT_EQ(static_cast<int>(Algorithm::scaffold), 2);
  EXPECT_EQ(static_cast<std::uint64_t>(Algorithm::fedrr), 3u);
  EXPECT_GE(theory::parse_algorithm("l2gd").ordinal(), 4);
}

TEST(AlgorithmRegistry, ClosedFormsAreRegisteredExactlyWhereTheDescriptorSaysSo) {
  for (const auto* d : theory::registered_algorithms()) {
    const bool has_theory = theory::find_algorithm_theory(d->algorithm) != nullptr;
    if (d->family == theory::AlgorithmFamily::chain) {
      EXPECT_EQ(has_theory, d->has_closed_forms) << d->name();
    } else {
      EXPECT_FALSE(has_theory) << d->name() << ": personalised algorithms predict their own way";
    }
    EXPECT_FALSE(d->summary.empty()) << d->name();
    EXPECT_FALSE(d->theory_labels.empty()) << d->name();
  }
  EXPECT_TRUE(theory::describe(theory::parse_algorithm("l2gd")).has_closed_forms);
  EXPECT_FALSE(theory::describe(theory::parse_algorithm("l2sgd+")).has_closed_forms);
  EXPECT_TRUE(theory::describe(theory::Algorithm::fedrr).reads(theory::AlgorithmOption::noise));
  EXPECT_FALSE(theory::describe(theory::Algorithm::fedavg).reads(theory::AlgorithmOption::noise));
}

TEST(AlgorithmRegistry, SgdRequiresOneLocalStep) {
  try {
    theory::validate(theory::Algorithm::sgd, {0.1, 2});
    FAIL() << "sgd accepted H = 2";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--local-steps:", 0), 0u) << e.what();
  }
  EXPECT_NO_THROW(theory::validate(theory::Algorithm::fedavg, {0.1, 2}));
  EXPECT_THROW(theory::validate(theory::Algorithm::fedavg, {0.0, 2}), InputError);
}

// first_order() and exact_moments() reach the per-algorithm formulas through the registry: the
// numbers are the same bits as a direct call.
TEST(AlgorithmRegistry, DispatchByNameEqualsTheDirectFormulasBitForBit) {
  const ChainCase c = kChainCases[1];
  const QuadraticProblem p = chain_problem(c);
  const RunSetting s{c.gamma, c.local_steps};
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  using theory::Algorithm;
  const auto same = [](const theory::FirstOrderMoments& a, const theory::FirstOrderMoments& b) {
    return a.mean == b.mean && a.cov == b.cov && a.bias_heterogeneity == b.bias_heterogeneity &&
           a.bias_stochastic == b.bias_stochastic && a.x_star == b.x_star;
  };
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::fedavg, s), theory::fedavg_first_order(k, s)));
  EXPECT_TRUE(
      same(theory::first_order(k, Algorithm::scaffold, s), theory::scaffold_first_order(k, s)));
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::fedrr, s), theory::fedrr_first_order(k, s)));
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::sgd, {c.gamma, 1}),
                   theory::fedavg_first_order(k, {c.gamma, 1})));

  const theory::ExactMoments fedavg = theory::exact_moments(p, Algorithm::fedavg, s);
  EXPECT_EQ(fedavg.mean, theory::fedavg_exact(p, s).mean);
  EXPECT_EQ(fedavg.cov, theory::fedavg_exact(p, s).cov);
  const theory::ExactMoments fedrr = theory::exact_moments(p, Algorithm::fedrr, s);
  EXPECT_EQ(fedrr.cov, theory::fedrr_exact(p, s).cov);
  const theory::ScaffoldExactMoments stacked = theory::scaffold_exact(p, s);
  const theory::ExactMoments scaffold = theory::exact_moments(p, Algorithm::scaffold, s);
  EXPECT_EQ(scaffold.mean, stacked.x_mean());
  EXPECT_EQ(scaffold.cov, stacked.x_cov());
  const auto state = theory::algorithm_theory(Algorithm::scaffold).exact_state(p, s);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->mean, stacked.mean);
  EXPECT_EQ(state->cov, stacked.cov);
  EXPECT_FALSE(theory::algorithm_theory(Algorithm::fedavg).exact_state(p, s).has_value());
}

TEST(AlgorithmRegistry, AlgorithmsWithoutClosedFormsAreRefusedNamingAlgo) {
  const QuadraticProblem p = chain_problem(kChainCases[0]);
  try {
    theory::exact_moments(p, theory::parse_algorithm("l2sgd"), {0.1, 1});
    FAIL() << "exact moments for l2sgd";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--algo:", 0), 0u) << e.what();
  }
}

// A new algorithm is one registration: it is then parsed, validated, listed and dispatched by
// name with no other change. The toy "fedavg-twice-gamma" is FedAvg at step 2γ.
class FedavgTwiceGamma final : public theory::AlgorithmTheory {
 public:
  theory::FirstOrderMoments first_order(const theory::ExpansionCoefficients& k,
                                        const RunSetting& s) const override {
    return theory::fedavg_first_order(k, {2 * s.gamma, s.local_steps});
  }
  theory::ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return theory::fedavg_exact(q, {2 * s.gamma, s.local_steps});
  }
};

TEST(AlgorithmRegistry, ANewAlgorithmIsReachedByItsNameAlone) {
  constexpr theory::Algorithm kToy{"fedavg-twice-gamma"};
  constexpr int kAfterEveryBuiltIn = 1000;
  static const bool registered =
      theory::register_algorithm({.algorithm = kToy,
                                  .order = kAfterEveryBuiltIn,
                                  .summary = "FedAvg at step 2 gamma (a test of the registry)",
                                  .theory_labels = {"F2", "F3", "F5"},
                                  .family = theory::AlgorithmFamily::chain,
                                  .options = {theory::AlgorithmOption::local_steps}},
                                 std::make_unique<FedavgTwiceGamma>());
  ASSERT_TRUE(registered);
  EXPECT_EQ(registered_names().back(), "fedavg-twice-gamma");
  EXPECT_EQ(theory::parse_algorithm("fedavg-twice-gamma"), kToy);
  EXPECT_TRUE(theory::describe(kToy).has_closed_forms);  // set by the registration
  EXPECT_THROW(theory::register_algorithm({.algorithm = kToy}), std::logic_error);

  const ChainCase c = kChainCases[1];
  const QuadraticProblem p = chain_problem(c);
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  EXPECT_EQ(theory::first_order(k, kToy, {c.gamma, c.local_steps}).cov,
            theory::first_order(k, theory::Algorithm::fedavg, {2 * c.gamma, c.local_steps}).cov);
  EXPECT_EQ(theory::exact_moments(p, kToy, {c.gamma, c.local_steps}).mean,
            theory::fedavg_exact(p, {2 * c.gamma, c.local_steps}).mean);
}

}  // namespace
}  // namespace fedverify
