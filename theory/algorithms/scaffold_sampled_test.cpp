// Scaffold with client sampling (theory/algorithms/scaffold_sampled.hpp, THEORY S8): the exact
// stationary moments of (x, c_1, …, c_N) against
//  - brute-force iteration over every subset (theory/problems/testing/brute_force_scaffold_
//    sampled.hpp builds each round step by step from Karimireddy et al.'s Algorithm 1),
//  - at S = N, Scaffold's own exact law (THEORY S6/S6a, the structured solve in ξ coordinates),
//  - the fixed point x = x*, c_c = ∇f_c(x*), which every subset's round leaves in place,
// on the small quadratics of theory/problems/testing/chain_cases.hpp.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "theory/algorithms/scaffold.hpp"
#include "theory/algorithms/scaffold_sampled.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/brute_force_scaffold_sampled.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::chain_problem;
using verify::kBruteForceTolerance;
using verify::kChainCases;

theory::RunSetting sampled_setting(const verify::ChainCase& k, int sampled) {
  theory::RunSetting s{k.gamma, k.local_steps};
  s.participating = sampled;
  return s;
}

TEST(ScaffoldSampled, MatchesBruteForceEnumerationOfSubsets) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    for (int sampled = 1; sampled < p.num_clients(); ++sampled) {
      const auto exact = theory::scaffold_sampled_exact(p, sampled_setting(k, sampled));
      const auto brute = verify::brute_force_scaffold_sampled(p, k.gamma, k.local_steps, sampled);
      verify::expect_brute_force_match(fmt::format("scaffold S={} {} (2^{} rounds)", sampled,
                                                   verify::describe(k), brute.rounds_log2),
                                       exact.mean, exact.cov, brute.mean, brute.cov);
    }
  }
}

// At S = N the (x, c) chain is Scaffold's full-participation chain: its x block and the variates
// ξ_c = c̄ − c_c must be those of scaffold_exact, a different derivation (ξ coordinates on
// Σ_c ξ_c = 0) and a different solver (THEORY S6a).
TEST(ScaffoldSampled, FullParticipationIsScaffoldsExactLaw) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const int d = p.dim(), n = p.num_clients();
    const auto sampled = theory::scaffold_sampled_exact(p, sampled_setting(k, n));
    const auto full = theory::scaffold_exact(p, {k.gamma, k.local_steps});
    // (x, ξ) = T (x, c): ξ_c = (1/N) Σ_j c_j − c_c.
    Matrix t = Matrix::Zero(d * (n + 1), d * (n + 1));
    t.topLeftCorner(d, d).setIdentity();
    for (int c = 0; c < n; ++c) {
      for (int j = 0; j < n; ++j) {
        t.block(d * (1 + c), d * (1 + j), d, d) =
            (1.0 / n - (c == j ? 1.0 : 0.0)) * Matrix::Identity(d, d);
      }
    }
    verify::expect_brute_force_match("scaffold S=N in ξ coordinates " + verify::describe(k),
                                     t * sampled.mean, t * sampled.cov * t.transpose(), full.mean,
                                     full.cov);
  }
}

TEST(ScaffoldSampled, MeanIsTheFixedPointOfEveryRound) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const Vector xs = theory::minimizer(p);
    const int d = p.dim();
    for (int sampled = 1; sampled <= p.num_clients(); ++sampled) {
      const auto m = theory::scaffold_sampled_exact(p, sampled_setting(k, sampled));
      EXPECT_LE((m.mean.head(d) - xs).norm(), kBruteForceTolerance * (1 + xs.norm()));
      for (int c = 0; c < p.num_clients(); ++c) {
        const Vector grad = p.gradient(c, xs);
        EXPECT_LE((m.mean.segment(d * (1 + c), d) - grad).norm(),
                  kBruteForceTolerance * (1 + grad.norm()))
            << "client " << c << ", S = " << sampled;
      }
    }
  }
}

// THEORY (S8a) at S = N: the stale-noise factor 2 − S/N is 1, Scaffold's (S2)/(S3) exactly.
TEST(ScaffoldSampled, FirstOrderAtFullParticipationIsScaffolds) {
  const auto& k = kChainCases[1];
  const QuadraticProblem p = chain_problem(k);
  const auto coefficients = theory::expansion_coefficients(p);
  const auto sampled =
      theory::scaffold_sampled_first_order(coefficients, sampled_setting(k, p.num_clients()));
  const auto full = theory::scaffold_first_order(coefficients, {k.gamma, k.local_steps});
  EXPECT_EQ(sampled.mean, full.mean);
  EXPECT_LE((sampled.cov - full.cov).norm(), 4 * std::numeric_limits<double>::epsilon() *
                                                 full.cov.norm());  // (2 − 1)·x vs x: ≤ 1 ulp
}

void expect_input_error(const QuadraticProblem& p, const theory::RunSetting& s,
                        const std::string& field) {
  try {
    theory::scaffold_sampled_exact(p, s);
    ADD_FAILURE() << "no error; expected one naming " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(field, 0), 0U) << e.what();
  }
}

TEST(ScaffoldSampled, RefusesWhatItCannotSolve) {
  const auto& k = kChainCases[0];  // d = 2, N = 3
  const QuadraticProblem p = chain_problem(k);
  expect_input_error(p, sampled_setting(k, 4), "--participating");
  theory::RunSetting unstable = sampled_setting(k, 2);
  unstable.gamma = 50.0;  // γ·λ_max far beyond 2: the local steps themselves diverge
  expect_input_error(p, unstable, "--gamma");
  auto big = verify::small_options(7);
  big.dim = 3;
  big.clients = 10;  // d(N + 1) = 33 > kScaffoldSampledMaxState
  expect_input_error(theory::generate_quadratic(big), sampled_setting(k, 2), "problem");
}

}  // namespace
}  // namespace fedverify
