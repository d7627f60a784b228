// Scaffold with a global step η_g (THEORY S9; --server-lr, theory/problems/scaffold_setting.hpp):
//  - the exact law of the stacked state (the dense solve of S6 on the scaled round map) against
//    brute-force iteration of rounds built step by step from Karimireddy et al.'s option II
//    (theory/problems/testing/brute_force_chain.hpp, an independent build),
//  - under client sampling (S8 with η_g) against enumeration of every subset,
//  - the first-order law (S9: γη_g in place of γ in S2, S3) as the limit of the exact one,
// on the small quadratics of theory/problems/testing/chain_cases.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "theory/algorithms/scaffold.hpp"
#include "theory/algorithms/scaffold_sampled.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/scaffold_setting.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/brute_force_scaffold_sampled.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::chain_problem;
using verify::kChainCases;

// Server steps below and above 1: damped (0.5) and extrapolating (1.5) as FedLab's and PFLlib's
// `global_lr` allow.
constexpr double kServerSteps[] = {0.5, 1.5};

theory::RunSetting with_server_step(double gamma, int local_steps, double eta,
                                    int participating = 0) {
  theory::RunSetting s{gamma, local_steps};
  s.participating = participating;
  s.parameters.emplace(std::string(theory::kServerLrKey), std::vector<double>{eta});
  return s;
}

TEST(ScaffoldServerStep, ExactLawMatchesBruteForceIterationOnTheWholeStackedState) {
  int compared = 0;
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    for (const double eta : kServerSteps) {
      theory::ScaffoldExactMoments exact;
      try {
        exact = theory::scaffold_exact(p, with_server_step(k.gamma, k.local_steps, eta));
      } catch (const InputError&) {
        continue;  // no stationary law at this η_g: nothing to compare
      }
      const auto brute = verify::brute_force_scaffold(p, k.gamma, k.local_steps, eta);
      verify::expect_brute_force_match(fmt::format("scaffold η_g={} {} (2^{} rounds)", eta,
                                                   verify::describe(k), brute.rounds_log2),
                                       exact.mean, exact.cov, brute.mean, brute.cov);
      // (S9) keeps the fixed point: x = x*, ξ_c = −∇f_c(x*).
      EXPECT_LE((exact.x_mean() - theory::minimizer(p)).norm(),
                verify::kBruteForceTolerance * (1 + theory::minimizer(p).norm()));
      ++compared;
    }
  }
  EXPECT_GE(compared, static_cast<int>(kChainCases.size()));  // most cases are stationary
}

TEST(ScaffoldServerStep, SampledExactLawMatchesEnumerationOfSubsets) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const double eta = 0.7;
    for (int sampled = 1; sampled < p.num_clients(); ++sampled) {
      const auto exact =
          theory::scaffold_sampled_exact(p, with_server_step(k.gamma, k.local_steps, eta, sampled));
      const auto brute =
          verify::brute_force_scaffold_sampled(p, k.gamma, k.local_steps, sampled, eta);
      verify::expect_brute_force_match(
          fmt::format("scaffold η_g={} S={} {}", eta, sampled, verify::describe(k)), exact.mean,
          exact.cov, brute.mean, brute.cov);
    }
  }
}

// The exact law of x through the algorithm's registered theory: S < N takes (S8), S = N (S6).
TEST(ScaffoldServerStep, RegisteredExactLawFollowsTheSetting) {
  const auto& k = kChainCases[0];
  const QuadraticProblem p = chain_problem(k);
  const int d = p.dim();
  const auto s = with_server_step(k.gamma, k.local_steps, 0.5, 2);
  const auto registered = theory::exact_moments(p, theory::Algorithm::scaffold, s);
  const auto sampled = theory::scaffold_sampled_exact(p, s);
  EXPECT_EQ(registered.cov, Matrix(sampled.cov.topLeftCorner(d, d)));
  const auto full = theory::exact_moments(p, theory::Algorithm::scaffold,
                                          with_server_step(k.gamma, k.local_steps, 0.5));
  EXPECT_GT((full.cov - registered.cov).norm(), 1e-3 * full.cov.norm());  // not the same law
}

// THEORY (S9), derived: the server's dynamics are SGD at step γη_gH with the noise C̄/(NH) of one
// round's average gradient, so Cov_π(x) = (γη_g/N)𝒜C̄ + O(γ²): the relative error of the
// first-order covariance must halve with γ (≤ 0.6×, as the (S7) test), and η_g = 1's formula
// must not fit (the check can fail: at η_g = 0.5 it is off by a factor 2).
TEST(ScaffoldServerStep, FirstOrderCovarianceIsTheLimitOfTheExactLaw) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto coeff = theory::expansion_coefficients(p);
    for (const double eta : kServerSteps) {
      auto error = [&](double gamma) {
        const auto s = with_server_step(gamma, k.local_steps, eta);
        const Matrix predicted = theory::scaffold_first_order(coeff, s).cov;
        return verify::relative_error(theory::scaffold_exact(p, s).x_cov(), predicted);
      };
      const double g = 1e-2 / (p.smoothness() * k.local_steps);
      const double e1 = error(g), e2 = error(g / 2);
      fmt::print("(S9) η_g={} {}: relative error {:.2e} → {:.2e}\n", eta, verify::describe(k), e1,
                 e2);
      EXPECT_LE(e2, 0.6 * e1 + 1e-9);
      EXPECT_LT(e2, 0.05);
      const auto plain = theory::scaffold_first_order(coeff, {g, k.local_steps}).cov;
      const auto exact = theory::scaffold_exact(p, with_server_step(g, k.local_steps, eta)).x_cov();
      EXPECT_GT(verify::relative_error(exact, plain), 0.2);
    }
  }
}

// Not given, η_g is 1: the setting without the parameter and with server_lr = 1 give the same
// bits (the structured solve of S6a in both).
TEST(ScaffoldServerStep, ServerStepOneIsScaffold) {
  const auto& k = kChainCases[1];
  const QuadraticProblem p = chain_problem(k);
  const auto plain = theory::scaffold_exact(p, {k.gamma, k.local_steps});
  const auto one = theory::scaffold_exact(p, with_server_step(k.gamma, k.local_steps, 1.0));
  EXPECT_EQ(plain.mean, one.mean);
  EXPECT_EQ(plain.cov, one.cov);
}

TEST(ScaffoldServerStep, FirstOrderUnderSamplingIsRefusedByName) {
  const auto& k = kChainCases[0];
  const QuadraticProblem p = chain_problem(k);
  try {
    theory::scaffold_sampled_first_order(theory::expansion_coefficients(p),
                                         with_server_step(k.gamma, k.local_steps, 0.5, 2));
    ADD_FAILURE() << "no error; expected one naming --server-lr";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--server-lr", 0), 0U) << e.what();
  }
}

}  // namespace
}  // namespace fedverify
