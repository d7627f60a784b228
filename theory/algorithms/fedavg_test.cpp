// FedAvg's closed forms (theory/algorithms/fedavg.hpp): the exact stationary moments (F5)
// against brute-force iteration of the chain's moments
// (theory/problems/testing/brute_force_chain.hpp builds each round step by step from THEORY F0),
// and the fixed-point formula (F4) against the exact stationary mean, on the small quadratics of
// theory/problems/testing/chain_cases.hpp. Tolerances: the round-off bounds of
// theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a backward-stable solve; the
// central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "theory/algorithms/fedavg.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/brute_force_chain.hpp"
#include "theory/problems/testing/chain_cases.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using theory::RunSetting;
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
    const RunSetting s{k.gamma, k.local_steps};
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

// THEORY (F7): (exact − x* − γ(H−1)b_h)/γ² → c₂(H) and (exact cov − (γ/N)𝒜C̄)/γ² → X₁(H) with
// an error linear in γ: halving γ must (at least nearly) halve the error. The next term of each
// expansion is O(γ³H³) resp. O(γ³H²), so the error at γ is ≈ a·γ; the test allows
// e(γ/2) ≤ 0.6·e(γ) (0.5 plus 20 % for the O(γ²) part of the error at γL ≤ 1e-2) plus round-off
// (κ·ε of the exact solve, divided by γ² for a second-order coefficient: below 1e-6 here).
TEST(SecondOrder, FedAvgCoefficientsAreTheLimitOfTheExactRemainders) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto coeff = theory::expansion_coefficients(p);
    const int n = p.num_clients();
    const auto so = theory::fedavg_second_order(p, coeff, k.local_steps);
    auto errors = [&](double gamma) {
      const auto ex = theory::fedavg_exact(p, {gamma, k.local_steps});
      const Vector r =
          ex.mean - coeff.constants.x_star - gamma * (k.local_steps - 1) * coeff.b_heterogeneity;
      const Matrix rc = ex.cov - (gamma / n) * coeff.a_noise;
      return std::pair<double, double>{(r / (gamma * gamma) - so.mean).norm(),
                                       (rc / (gamma * gamma) - so.cov).norm()};
    };
    const double g = 1e-2 / p.smoothness();
    const auto [em1, ec1] = errors(g);
    const auto [em2, ec2] = errors(g / 2);
    fmt::print("(F7) H={} d={} N={}: mean err {:.2e} → {:.2e}, cov err {:.2e} → {:.2e}\n",
               k.local_steps, k.dim, n, em1, em2, ec1, ec2);
    constexpr double kRoundOff = 1e-6;
    EXPECT_LE(em2, 0.6 * em1 + kRoundOff);
    EXPECT_LE(ec2, 0.6 * ec1 + kRoundOff);
    // Not vacuous: the coefficients are of the size of the remainders they predict.
    EXPECT_LT(ec2, 0.05 * so.cov.norm());
    if (k.local_steps > 1) {
      EXPECT_LT(em2, 0.05 * so.mean.norm());
    }
  }
}

TEST(SecondOrder, FedAvgAtOneLocalStepIsSgd) {
  // H = 1: no mean correction; X₁(1) = (1/N)𝒜(𝐇(𝒜C̄)𝐇), the O(γ²) term of (G1)'s exact
  // vec Σ = γ(𝐇⊕𝐇 − γ𝐇⊗𝐇)⁻¹ vec(C̄/N).
  const QuadraticProblem p = chain_problem(kChainCases.front());
  const auto coeff = theory::expansion_coefficients(p);
  const auto so = theory::fedavg_second_order(p, coeff, 1);
  EXPECT_EQ(so.mean.norm(), 0.0);
  const Matrix& h = coeff.constants.hessian_at_optimum;
  const Matrix expected = theory::lyapunov_operator(h, h * coeff.a_noise * h) / p.num_clients();
  EXPECT_LE(relative_error(so.cov, expected), 1e-13);
}

// THEORY (N5), (F8) on quadratics: the fixed point is x* + (I − M)⁻¹(T(x*) − x*) exactly, with
// T(x*) − x* = −γH g; the deterministic iteration finds the (F4) fixed point; the bound holds.
TEST(AverageDrift, RelatesTheRoundStepToTheFixedPointExactly) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const RunSetting s{k.gamma, k.local_steps};
    if (k.gamma * p.smoothness() > 1.0) continue;  // (F8)'s contraction needs γ ≤ 1/L
    const Vector xs = theory::minimizer(p);
    const auto drift = theory::average_drift(p, xs, s);
    const auto map = theory::fedavg_round_map(p, s);
    const Vector fp = theory::fedavg_fixed_point(p, s);
    // T(x*) − x* = γ(r − D x*) in the map's divided form. Absolute round-off: a few ulps of x*
    // per local step (at H = 1 the drift is a round-off zero: Σ_c ∇f_c(x*) = 0).
    const double ulps = 1e3 * verify::kEps * (1 + xs.norm()) * k.local_steps;
    EXPECT_LE((drift.round_step - k.gamma * (map.r - map.d * xs)).norm(), ulps);
    const double rho = std::pow(1 - k.gamma * p.strong_convexity(), k.local_steps);
    // (I − M)⁻¹ = (γD)⁻¹ amplifies by at most 1/(1 − ρ).
    EXPECT_LE((fp - xs - map.d.ldlt().solve(drift.round_step) / k.gamma).norm(), ulps / (1 - rho));
    const Vector iterated = theory::fedavg_deterministic_fixed_point(p, s, xs, 1e-13);
    EXPECT_LE((iterated - fp).norm(), 1e-12 + ulps / (1 - rho));
    const auto b = theory::drift_bias_bound(drift, rho);
    const double bias = (fp - xs).norm();
    EXPECT_LE(b.lower, bias + ulps / (1 - rho));
    EXPECT_GE(b.upper, bias - ulps / (1 - rho));
  }
}

}  // namespace
}  // namespace fedverify
