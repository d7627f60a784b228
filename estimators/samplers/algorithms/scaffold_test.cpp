// Scaffold's round (estimators/samplers/algorithms/scaffold.hpp): the invariant Σ_c ξ_c = 0 of
// THEORY (S0), the stacked state's layout, and the planted Scaffold bugs of verify/planted, each
// of which must change the trajectory.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"
#include "verify/planted/scaffold_bugs.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::kEps;
using verify::options;
using verify::quadratic;

double max_abs_sum_of_control_variates(const ChainEnsemble& e) {
  Matrix sum = Matrix::Zero(e.dim(), e.chains());
  for (int c = 0; c < e.num_clients(); ++c) sum += scaffold_correction(e, c);
  return sum.cwiseAbs().maxCoeff();
}

double max_abs_control_variate(const ChainEnsemble& e) {
  double m = 0;
  for (int c = 0; c < e.num_clients(); ++c)
    m = std::max(m, scaffold_correction(e, c).cwiseAbs().maxCoeff());
  return m;
}

// Statement (S0): the update preserves Σ_c ξ_c = 0 when the ξ_c start at 0.
// Decision: after T = 50 rounds, ‖Σ_c ξ_c‖∞ ≤ 8·N·T·ε·max|ξ| (each round adds a few roundings
// of size ε·max|ξ| per client to the conserved sum). The planted server bug must break it.
TEST(Engine, ScaffoldPreservesTheSumOfControlVariates) {
  const int n = 4, rounds = 50;
  const auto q = quadratic(3, n, 1.0);
  ChainEnsemble e(q, options(Algorithm::scaffold, 0.1, 3), Vector::Zero(3), 24);
  e.advance(rounds, 2, {});
  const double tol = 8.0 * n * rounds * kEps * max_abs_control_variate(e);
  const double sum = max_abs_sum_of_control_variates(e);
  fmt::print("Scaffold: max |sum_c xi_c| = {:.3g} (bound {:.3g}), max |xi| = {:.3g}\n", sum, tol,
             max_abs_control_variate(e));
  EXPECT_LE(sum, tol);
  EXPECT_GT(max_abs_control_variate(e), 0.1);  // the invariant is not trivially satisfied
  // The stacked state has the layout of theory::scaffold_exact: (x, ξ_1, …, ξ_N).
  const Matrix z = e.stacked_state();
  EXPECT_EQ(z.topRows(3), e.state());
  EXPECT_EQ(z.middleRows(3 * (1 + 2), 3), scaffold_correction(e, 2));
}

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
