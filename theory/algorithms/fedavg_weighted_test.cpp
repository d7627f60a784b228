// FedAvg with client weights p_c (THEORY (A1)) on quadratics: the exact law (F5 with Σ_c p_c and
// Σ_c p_c²) against the brute-force chain built step by step (brute_force_chain.hpp aggregates
// with p_c); (F4) against the exact mean; the first-order moments of (A1) as the limit of the
// exact ones; the source's hint for (F2) refuted; algorithms without weights refuse them.
//
// Tolerances: brute force as in fedavg_test.cpp (kBruteForceTolerance, chain_cases.hpp). First
// order: on quadratics (F2)'s covariance and (F3)'s bias have remainders O(γ²) (THEORY (F3),
// settled), so the relative error of each is a·γ + O(γ²) and halving γ halves it; at γL ≤ 0.0125
// the O(γ²) part is below 10 % of the error, so e(γ/2)/e(γ) ∈ [0.45, 0.55].
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/fedrr.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::Algorithm;
using theory::QuadraticProblem;
using theory::RunSetting;
using verify::chain_problem;
using verify::kChainCases;
using verify::relative_error;

// Weights 1, 3, 7, 15, … (2^{c+1} − 1: unequal, none dominant).
QuadraticProblem weighted(const verify::ChainCase& k) {
  QuadraticProblem p = chain_problem(k);
  std::vector<double> w;
  for (int c = 0; c < p.num_clients(); ++c) w.push_back(std::ldexp(1.0, c + 1) - 1.0);
  p.set_client_weights(w);
  return p;
}

TEST(WeightedFedAvg, ExactLawMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    if (k.clients < 2) continue;
    const QuadraticProblem p = weighted(k);
    ASSERT_FALSE(p.equal_weights());
    const auto exact = theory::fedavg_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_fedavg(p, k.gamma, k.local_steps);
    verify::expect_brute_force_match(fmt::format("weighted fedavg {}", verify::describe(k)),
                                     exact.mean, exact.cov, brute.mean, brute.cov);
    // The weights change the law (else the comparison would show nothing).
    const auto equal = theory::fedavg_exact(chain_problem(k), {k.gamma, k.local_steps});
    EXPECT_GT(relative_error(equal.cov, brute.cov), 1e3 * verify::kBruteForceTolerance);
  }
}

// FedRR runs FedAvg at γ and 2γ: both runs average with p_c, and with shared noise their
// cross-covariance carries Σ_c p_c² (THEORY (A1), (R2)).
TEST(WeightedFedAvg, FedrrExactLawMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    if (k.clients < 2 || 2 * k.gamma * k.local_steps > 1.0) continue;
    const QuadraticProblem p = weighted(k);
    const int d = k.dim;
    Matrix l(d, 2 * d);  // χ = 2 x^{(γ)} − x^{(2γ)}
    l << 2.0 * Matrix::Identity(d, d), -Matrix::Identity(d, d);
    for (bool shared : {false, true}) {
      const auto exact = theory::fedrr_exact(
          p, {k.gamma, k.local_steps},
          shared ? theory::NoiseCoupling::shared : theory::NoiseCoupling::independent);
      const auto pair = verify::brute_force_fedrr_pair(p, k.gamma, k.local_steps, shared);
      verify::expect_brute_force_match(
          fmt::format("weighted fedrr ({}) {}", shared ? "shared" : "independent",
                      verify::describe(k)),
          exact.mean, exact.cov, l * pair.mean, l * pair.cov * l.transpose());
    }
  }
}

TEST(WeightedFedAvg, FixedPointFormulaEqualsExactMean) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = weighted(k);
    const RunSetting s{k.gamma, k.local_steps};
    EXPECT_LE(relative_error(theory::fedavg_fixed_point(p, s), theory::fedavg_exact(p, s).mean),
              verify::kBruteForceTolerance)
        << verify::describe(k);
  }
}

TEST(WeightedFedAvg, OptimumSolvesTheWeightedGradientEquation) {
  const QuadraticProblem p = weighted(kChainCases[1]);
  const Vector x_star = theory::problem_constants(p).x_star;
  Vector g = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) g += p.weight(c) * p.gradient(c, x_star);
  EXPECT_LE(g.norm(), 1e-12 * (1.0 + x_star.norm()));
  double total = 0;
  for (int c = 0; c < p.num_clients(); ++c) total += p.weight(c);
  EXPECT_NEAR(total, 1.0, 1e-15);
}

struct Errors {
  double cov = 0;   // ‖exact cov − (A1)‖/‖(A1)‖
  double mean = 0;  // ‖exact mean − (A1) mean‖/‖(A1) mean − x*‖
  double hint = 0;  // ‖exact cov − (A1)/(Σ p_c²)‖/‖exact cov‖: the source's hint
};

Errors first_order_errors(const QuadraticProblem& p, const RunSetting& s) {
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  const theory::FirstOrderMoments fo = theory::first_order(k, Algorithm::fedavg, s);
  const theory::ExactMoments ex = theory::fedavg_exact(p, s);
  double sum_p2 = 0;
  for (int c = 0; c < p.num_clients(); ++c) sum_p2 += p.weight(c) * p.weight(c);
  Errors e;
  e.cov = (ex.cov - fo.cov).norm() / fo.cov.norm();
  e.mean = (ex.mean - fo.mean).norm() / (fo.mean - fo.x_star).norm();
  e.hint = (ex.cov - fo.cov / sum_p2).norm() / ex.cov.norm();
  return e;
}

// (A1): Cov_π = γ𝒜(Σ_c p_c² C_c) + O(γ²) and E_π x = x* + γ(H − 1)b_h + O(γ²) with the weighted
// b_h; the hint "γ𝒜(Σ_c p_c² C_c)·(Σ_c p_c²)⁻¹" stays a factor 1/Σp² − 1 away.
TEST(WeightedFedAvg, FirstOrderMomentsAreTheLimitOfTheExactOnes) {
  for (const auto& k : kChainCases) {
    if (k.clients < 2 || k.local_steps < 2) continue;  // H = 1: no heterogeneity bias to compare
    const QuadraticProblem p = weighted(k);
    const double l = p.smoothness();
    const RunSetting coarse{0.025 / l, k.local_steps};
    const RunSetting fine{0.0125 / l, k.local_steps};
    const Errors a = first_order_errors(p, coarse);
    const Errors b = first_order_errors(p, fine);
    fmt::print(
        "{}: cov rel.err {:.3e} → {:.3e} (ratio {:.3f}); mean {:.3e} → {:.3e} ({:.3f}); "
        "hint {:.3f}\n",
        verify::describe(k), a.cov, b.cov, b.cov / a.cov, a.mean, b.mean, b.mean / a.mean, b.hint);
    EXPECT_GE(b.cov / a.cov, 0.45) << verify::describe(k);
    EXPECT_LE(b.cov / a.cov, 0.55) << verify::describe(k);
    EXPECT_GE(b.mean / a.mean, 0.45) << verify::describe(k);
    EXPECT_LE(b.mean / a.mean, 0.55) << verify::describe(k);
    EXPECT_GT(b.hint, 0.5) << verify::describe(k);  // 1/Σp² − 1 ≥ 0.5 for these weights
  }
}

TEST(WeightedFedAvg, EqualWeightsGiveTheUnweightedArithmetic) {
  QuadraticProblem p = chain_problem(kChainCases[2]);
  const RunSetting s{kChainCases[2].gamma, kChainCases[2].local_steps};
  const auto before = theory::fedavg_exact(p, s);
  p.set_client_weights(std::vector<double>(p.num_clients(), 7.5));
  EXPECT_TRUE(p.equal_weights());
  const auto after = theory::fedavg_exact(p, s);
  EXPECT_EQ(before.mean, after.mean);
  EXPECT_EQ(before.cov, after.cov);
}

TEST(WeightedFedAvg, AlgorithmsWithoutWeightsRefuseThem) {
  const QuadraticProblem p = weighted(kChainCases[1]);
  const RunSetting s{kChainCases[1].gamma, kChainCases[1].local_steps};
  EXPECT_NO_THROW(theory::exact_moments(p, Algorithm::fedavg, s));
  try {
    theory::exact_moments(p, Algorithm::scaffold, s);
    FAIL() << "scaffold accepted unequal client weights";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("clients[].weight"), std::string::npos) << what;
    EXPECT_NE(what.find("--algo scaffold"), std::string::npos) << what;
    EXPECT_NE(what.find("fedavg"), std::string::npos) << what;
  }
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  EXPECT_THROW(theory::first_order(k, Algorithm::scaffold, s), InputError);
  EXPECT_THROW(theory::fedavg_second_order(p, k, 2), InputError);
}

}  // namespace
}  // namespace fedverify
