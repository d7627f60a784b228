// FedRR's closed forms (theory/algorithms/fedrr.hpp): the exact stationary moments of
// χ = 2 x^{(γ)} − x^{(2γ)}, THEORY (R2), for both noise couplings, against brute-force iteration
// of the pair's moments (theory/problems/testing/brute_force_chain.hpp builds each round step by
// step from THEORY R0), on the small quadratics of theory/problems/testing/chain_cases.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/algorithms/fedrr.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::chain_problem;
using verify::kChainCases;

TEST(ExactMoments, FedRRMatchesBruteForceIterationForBothNoiseCouplings) {
  for (const auto& k : kChainCases) {
    if (2 * k.gamma * k.local_steps > 1.0) continue;  // the 2γ run must have a stationary law
    const QuadraticProblem p = chain_problem(k);
    const int d = k.dim;
    Matrix l(d, 2 * d);  // χ = 2 x^{(γ)} − x^{(2γ)}
    l << 2.0 * Matrix::Identity(d, d), -Matrix::Identity(d, d);
    for (bool shared : {false, true}) {
      const auto coupling =
          shared ? theory::NoiseCoupling::shared : theory::NoiseCoupling::independent;
      const auto exact = theory::fedrr_exact(p, {k.gamma, k.local_steps}, coupling);
      const auto pair = verify::brute_force_fedrr_pair(p, k.gamma, k.local_steps, shared);
      verify::expect_brute_force_match(
          fmt::format("fedrr ({}) {}", shared ? "shared" : "independent", verify::describe(k)),
          exact.mean, exact.cov, l * pair.mean, l * pair.cov * l.transpose());
    }
  }
}

}  // namespace
}  // namespace fedverify
