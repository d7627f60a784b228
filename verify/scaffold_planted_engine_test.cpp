// The planted Scaffold bugs of verify/planted/scaffold_bugs.hpp run in the engine (moved here from
// estimators/samplers/algorithms/scaffold_test.cpp: a samplers test may not include verify/):
// each bug changes the trajectory, and Scaffold with client sampling keeps Σ_c ξ_c = 0 unless
// its server averages over |S|.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/round.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "estimators/samplers/testing/scaffold_variates.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"
#include "verify/planted/scaffold_bugs.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::kEps;
using verify::max_abs_control_variate;
using verify::max_abs_sum_of_control_variates;
using verify::options;
using verify::quadratic;

// --- Planted Scaffold bugs ----------------------------------------------------------------------

// Each bug that real frameworks shipped (verify/planted), injected as the Scaffold round, must
// change the trajectory (same seed, same start). Decision: after 3 rounds the iterate differs
// from correct Scaffold by far more than round-off.
TEST(Engine, PlantedScaffoldBugsChangeTheTrajectory) {
  const auto q = quadratic(3, 3, 1.0);
  auto run = [&](std::shared_ptr<const RoundSampler> round) {
    SamplerOptions o = options(Algorithm::scaffold, 0.1, 3);
    o.round = std::move(round);
    ChainEnsemble e(q, o, Vector::Zero(3), 8);
    e.advance(3, 1, {});
    return e;
  };
  const ChainEnsemble correct = run(nullptr);
  for (const verify::planted::ScaffoldBug bug : verify::planted::scaffold_bugs()) {
    const ChainEnsemble buggy = run(verify::planted::scaffold_round_with(bug));
    const double change = (buggy.state() - correct.state()).cwiseAbs().maxCoeff();
    fmt::print("planted bug {}: max change of x after 3 rounds {:.3g}\n",
               verify::planted::to_string(bug), change);
    EXPECT_GT(change, 1e-3);
  }
  // The server bug also breaks the conserved sum Σ_c ξ_c.
  EXPECT_GT(max_abs_sum_of_control_variates(run(verify::planted::scaffold_round_with(
                verify::planted::ScaffoldBug::server_adds_new_variate))),
            1e-3);
}

// Scaffold with client sampling (verify/planted, sampled_scaffold_round). Statements: with every
// client sampled it is the engine's Scaffold, bit for bit, with or without the |S|-for-N bug
// (which is why full participation cannot show that bug); with half the clients the correct
// server update keeps Σ_c ξ_c = 0 (bound as in ScaffoldPreservesTheSumOfControlVariates), while
// dividing by |S| instead of N breaks it.
TEST(Engine, SampledScaffoldKeepsTheSumOfControlVariatesUnlessItAveragesOverS) {
  const int n = 4, rounds = 50;
  const auto q = quadratic(3, n, 1.0);
  auto run = [&](std::shared_ptr<const RoundSampler> round) {
    SamplerOptions o = options(Algorithm::scaffold, 0.1, 3);
    o.round = std::move(round);
    ChainEnsemble e(q, o, Vector::Zero(3), 24);
    e.advance(rounds, 1, {});
    return e;
  };
  const ChainEnsemble full = run(nullptr);
  for (const bool bug : {false, true}) {
    const ChainEnsemble all_sampled = run(verify::planted::sampled_scaffold_round(1.0, bug));
    EXPECT_EQ(all_sampled.stacked_state(), full.stacked_state());
  }
  const ChainEnsemble correct = run(verify::planted::sampled_scaffold_round(0.5, false));
  const ChainEnsemble buggy = run(verify::planted::sampled_scaffold_round(0.5, true));
  EXPECT_GT((correct.state() - full.state()).cwiseAbs().maxCoeff(), 1e-3);  // sampling acts
  const double tol = 8.0 * n * rounds * kEps * max_abs_control_variate(correct);
  fmt::print(
      "sampled Scaffold (|S| = N/2): max |sum_c xi_c| = {:.3g} (bound {:.3g}); averaging "
      "over |S|: {:.3g}\n",
      max_abs_sum_of_control_variates(correct), tol, max_abs_sum_of_control_variates(buggy));
  EXPECT_LE(max_abs_sum_of_control_variates(correct), tol);
  EXPECT_GT(max_abs_sum_of_control_variates(buggy), 1e-3);
}

}  // namespace
}  // namespace fedverify::estimators
