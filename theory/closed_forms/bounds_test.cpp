// The explicit bounds of theory/closed_forms/bounds.hpp: the formulas of THEORY (F1) and (S5) at
// hand-computed points, and (F1) against an independent quantity — the exact Lipschitz constant
// ‖M‖₂ of FedAvg's round map on quadratics (theory/closed_forms/exact.hpp), which the bound must
// dominate whenever γ ≤ 1/L.
#include <gtest/gtest.h>

#include <cmath>

#include "theory/closed_forms/bounds.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/generators.hpp"

namespace fedverify::theory {
namespace {

// (F1) at γ = 0.1, μ = 0.5, H = 2: (1 − 0.05)² per round, 0.95⁶ over 3 rounds, rate −log 0.95.
TEST(Bounds, FedavgContractionFormulas) {
  const RunSetting step{0.1, 2};
  EXPECT_DOUBLE_EQ(fedavg_round_contraction(step, 0.5), 0.95 * 0.95);
  EXPECT_NEAR(fedavg_contraction(step, 0.5, 3), std::pow(0.95, 6), 1e-15);
  EXPECT_NEAR(fedavg_contraction_rate(step, 0.5), -std::log(0.95), 1e-15);
  EXPECT_DOUBLE_EQ(fedavg_contraction(step, 0.5, 0), 1.0);
}

// (F1) dominates the exact contraction: on a generated quadratic (d = 4, N = 5, condition 10)
// every local map x ↦ x − γA_c(x − b_c) is (1 − γμ)-Lipschitz for γ ≤ 1/L, so ‖M‖₂ ≤ (1 − γμ)^H
// (up to round-off of the norm, 1e-12 relative), with equality impossible to beat. At γ = 2/L,
// outside the theorem, the bound need not hold: the test only asks that it holds inside.
TEST(Bounds, FedavgContractionDominatesTheExactRoundMap) {
  const QuadraticProblem q =
      generate_quadratic({.dim = 4, .clients = 5, .condition = 10.0, .seed = 3});
  for (double gamma_l : {0.01, 0.1, 0.5, 1.0}) {
    for (int h : {1, 2, 5}) {
      const RunSetting step{gamma_l / q.smoothness(), h};
      const double exact = fedavg_contraction_factor(q, step);
      const double bound = fedavg_round_contraction(step, q.strong_convexity());
      EXPECT_LE(exact, bound * (1 + 1e-12)) << "γL = " << gamma_l << ", H = " << h;
    }
  }
}

// (S5) at γ = 0.1, H = 2, μ = 0.5, L = 2, ζ² = 3, σ*² = 4, N = 4, ‖x₀ − x*‖² = 9:
// ρ = 1 − 0.0125, B₀ = 9 + 2·0.01·4·3 + 4/1 = 13.24, stationary term 0.1·4/2 = 0.2.
TEST(Bounds, ScaffoldFiniteTimeBoundFormulas) {
  const auto b = scaffold_finite_time_bound({0.1, 2}, 0.5, 2.0, 3.0, 4.0, 4, 9.0);
  EXPECT_DOUBLE_EQ(b.rho, 1.0 - 0.0125);
  EXPECT_NEAR(b.initial, 13.24, 1e-13);
  EXPECT_NEAR(b.stationary, 0.2, 1e-15);
  EXPECT_NEAR(b.at(0), 13.44, 1e-13);
  EXPECT_NEAR(b.at(10), std::pow(1.0 - 0.0125, 20) * 13.24 + 0.2, 1e-13);
  EXPECT_NEAR(b.rate(), -std::log(1.0 - 0.0125), 1e-15);
  EXPECT_GT(b.at(10), b.at(11));  // the transient decays
}

// (S5)'s Q terms at the same point with Q = 0.3: γ^{3/2}Qσ*³/μ^{5/2} = 0.1^{1.5}·0.3·8/0.5^{2.5}
// = 0.4293251 and γ³HQ²σ*⁴/μ³ = 0.001·2·0.09·16/0.125 = 0.02304, added to the floor only.
TEST(Bounds, ScaffoldFiniteTimeBoundThirdDerivativeTerms) {
  const auto b = scaffold_finite_time_bound({0.1, 2}, 0.5, 2.0, 3.0, 4.0, 4, 9.0, 0.3);
  EXPECT_NEAR(b.initial, 13.24, 1e-13);
  EXPECT_NEAR(b.stationary, 0.2 + 0.42932505168 + 0.02304, 1e-10);
}

// (T3) at γ = 0.1, μ = 0.5, H = 2, χ = 0.7, ‖x₀ − x*‖² = 9: ρ = 0.95 per step, 0.95⁶·9 + 0.7 after
// three rounds.
TEST(Bounds, FedavgFiniteTimeBoundFormulas) {
  const auto b = fedavg_finite_time_bound({0.1, 2}, 0.5, 0.7, 9.0);
  EXPECT_DOUBLE_EQ(b.rho, 0.95);
  EXPECT_NEAR(b.at(0), 9.7, 1e-14);
  EXPECT_NEAR(b.at(3), std::pow(0.95, 6) * 9 + 0.7, 1e-14);
}

// (T3)'s χ is ‖E x − x*‖² + tr Cov of the first-order moments handed in.
TEST(Bounds, FirstOrderFloorIsBiasSquaredPlusTrace) {
  FirstOrderMoments m;
  m.x_star = Vector::Zero(2);
  m.mean = Vector::Constant(2, 0.5);
  m.cov = Matrix::Identity(2, 2) * 0.25;
  EXPECT_NEAR(first_order_floor(m), 0.5 + 0.5, 1e-15);
}

}  // namespace
}  // namespace fedverify::theory
