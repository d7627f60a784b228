// FedAvg's closed forms (theory/algorithms/fedavg.hpp): the exact stationary moments (F5)
// against brute-force iteration of the chain's moments (verify/support/brute_force_chain.hpp
// builds each round step by step from THEORY F0), and the fixed-point formula (F4) against the
// exact stationary mean, on the small quadratics of verify/support/chain_cases.hpp.
// Tolerances: the round-off bounds of verify/support/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "theory/algorithms/fedavg.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/support/brute_force_chain.hpp"
#include "verify/support/chain_cases.hpp"
#include "verify/support/round_off.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using theory::StepSetting;
using verify::chain_problem;
using verify::kChainCases;
using verify::kEps;
using verify::kSafety;
using verify::relative_error;

TEST(ExactMoments, FedAvgMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto exact = theory::fedavg_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_fedavg(p, k.gamma, k.local_steps);
    verify::expect_brute_force_match(
        fmt::format("fedavg {} (2^{} rounds)", verify::describe(k), brute.rounds_log2), exact.mean,
        exact.cov, brute.mean, brute.cov);
  }
}

TEST(ExactMoments, FixedPointFormulaEqualsExactStationaryMean) {
  // THEORY (F4) vs (F5). (F4) forms I − B_c^H, whose smallest eigenvalue is
  // 1 − (1 − γμ)^H ≈ γHμ, from B_c^H with absolute rounding ~Hε: relative error Hε/(1−(1−γμ)^H).
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const StepSetting s{k.gamma, k.local_steps};
    const Vector fp = theory::fedavg_fixed_point(p, s);
    const Vector m = theory::fedavg_exact(p, s).mean;
    const double mu = p.strong_convexity();
    const double tol = kSafety * k.dim * k.local_steps * kEps /
                       (1.0 - std::pow(1.0 - k.gamma * mu, k.local_steps));
    const double err = relative_error(fp, m);
    fmt::print("fixed point (F4) vs exact mean (F5), H={} γ={}: rel.err {:.2e} (tol {:.1e})\n",
               k.local_steps, k.gamma, err, tol);
    EXPECT_LE(err, tol);
  }
}

}  // namespace
}  // namespace fedverify
