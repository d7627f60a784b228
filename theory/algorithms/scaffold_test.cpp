// Scaffold's closed forms (theory/algorithms/scaffold.hpp): the exact stationary moments of the
// whole stacked state (x, ξ_1, …, ξ_N), THEORY (S6), against brute-force iteration of the chain's
// moments (verify/support/brute_force_chain.hpp builds each round step by step from THEORY S0),
// and the control variates' fixed point ξ_c* = −∇f_c(x*), on the small quadratics of
// verify/support/chain_cases.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/algorithms/scaffold.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/support/brute_force_chain.hpp"
#include "verify/support/chain_cases.hpp"
#include "verify/support/round_off.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::chain_problem;
using verify::kBruteForceTolerance;
using verify::kChainCases;

TEST(ExactMoments, ScaffoldMatchesBruteForceIterationOnTheWholeStackedState) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto exact = theory::scaffold_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_scaffold(p, k.gamma, k.local_steps);
    verify::expect_brute_force_match(fmt::format("scaffold stacked state {} (2^{} rounds)",
                                                 verify::describe(k), brute.rounds_log2),
                                     exact.mean, exact.cov, brute.mean, brute.cov);
    // Fixed point of the control variates: ξ_c* = −∇f_c(x*).
    const Vector xs = theory::minimizer(p);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector target = -p.gradient(c, xs);
      EXPECT_LE((exact.xi_mean(c) - target).norm(), kBruteForceTolerance * (1 + target.norm()))
          << "client " << c;
    }
  }
}

}  // namespace
}  // namespace fedverify
