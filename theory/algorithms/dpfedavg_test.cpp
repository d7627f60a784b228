// DP-FedAvg's closed forms (theory/algorithms/dpfedavg.hpp, THEORY (A5)): the exact law without
// clipping against the brute-force FedAvg chain with σ_dp² I added to each round's noise
// (brute_force_chain.hpp; tolerance kBruteForceTolerance); the first order (A5) as the limit of
// the exact law (its relative remainder O(γ): halving γ halves it, e(γ/2)/e(γ) ∈ [0.45, 0.55] at
// γL ≤ 0.0125 as in fedavg_weighted_test.cpp, here with the DP term dominating); a clipped
// setting has no exact law.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "theory/algorithms/dpfedavg.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/dpfedavg_setting.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using theory::RunSetting;
using verify::chain_problem;
using verify::kChainCases;

RunSetting dp_setting(double gamma, int h, double sigma) {
  RunSetting s{gamma, h};
  s.parameters[std::string(theory::kDpNoiseKey)] = {sigma};
  return s;
}

TEST(Dpfedavg, ExactLawMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const double sigma = 0.2;
    const auto exact = theory::dpfedavg_exact(p, dp_setting(k.gamma, k.local_steps, sigma));
    verify::RoundMap r = verify::brute_force_fedavg_round(p, k.gamma, k.local_steps);
    r.q += sigma * sigma * Matrix::Identity(k.dim, k.dim);  // the server's N(0, σ² I)
    const auto brute = verify::iterate_to_stationarity(r.f, r.c, r.q);
    verify::expect_brute_force_match(fmt::format("dpfedavg {}", verify::describe(k)), exact.mean,
                                     exact.cov, brute.mean, brute.cov);
  }
}

TEST(Dpfedavg, FirstOrderIsTheLimitOfTheExactLaw) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const double l = p.smoothness();
    const theory::ExpansionCoefficients coefficients = theory::expansion_coefficients(p);
    std::vector<double> errors, dp_share;
    for (double gl : {0.025, 0.0125}) {
      // σ_dp² = γ²: the DP term σ²/(γH)𝒜I is then of the order of the SGD term γ𝒜C̄/N.
      const RunSetting s = dp_setting(gl / l, k.local_steps, gl / l);
      const auto exact = theory::dpfedavg_exact(p, s);
      const auto fo = theory::dpfedavg_first_order(coefficients, s);
      errors.push_back((exact.cov - fo.cov).norm() / fo.cov.norm());
    }
    fmt::print("{}: relative error {:.3e} → {:.3e} (ratio {:.3f})\n", verify::describe(k),
               errors[0], errors[1], errors[1] / errors[0]);
    EXPECT_GE(errors[1] / errors[0], 0.45) << verify::describe(k);
    EXPECT_LE(errors[1] / errors[0], 0.55) << verify::describe(k);
  }
}

TEST(Dpfedavg, ClippedSettingHasNoExactLaw) {
  const QuadraticProblem p = chain_problem(kChainCases[0]);
  RunSetting s = dp_setting(0.05, 1, 0.1);
  s.parameters[std::string(theory::kClipKey)] = {1.0};
  EXPECT_THROW(theory::dpfedavg_exact(p, s), InputError);
}

}  // namespace
}  // namespace fedverify
