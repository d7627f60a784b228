// The update rules of Table 2.1 (THEORY O1) against trajectories constructed by hand.
//
// Under a constant gradient g every moment recursion has a closed form (a geometric sum), so the
// expected steps below are derived from the published rules, not read off the code: e.g. Adam's
// bias-corrected moments are exactly m̂_t = g and v̂_t = g², so every step is η g/√(g² + ε).
// Tolerance: each expected value and each rule evaluate a handful of roundings per step, so they
// agree to kRoundOff = 64 ε relative per step (t ≤ 50 steps accumulate at most 50 such errors).
#include "estimators/samplers/optimisers/update_rule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::estimators {
namespace {

using theory::OptimiserRole;
using verify::kEps;

constexpr double kRoundOff = 64 * kEps;

// One optimiser on a 1-vector x ∈ R¹ from x0, fed the constant gradient g for `steps` steps;
// returns the steps x_{t−1} − x_t.
std::vector<double> constant_gradient_steps(const std::string& spec_text, double lr, double x0,
                                            double g, int steps) {
  const auto spec = theory::parse_optimiser(spec_text, OptimiserRole::server);
  const auto rule = make_update_rule(spec, lr);
  OwnedRuleState state(*rule, 1, 1);
  double x = x0;
  rule->start(1, 1, &x, state.view());
  std::vector<double> out;
  for (int t = 1; t <= steps; ++t) {
    const double before = x;
    rule->update(1, 1, 1, t, &x, &g, state.view());
    out.push_back(before - x);
  }
  return out;
}

// A step is measured as the difference of two iterates of size ≈ |x0|, which costs up to 2ε|x0|
// absolute on top of the rules' own rounding.
void expect_steps(const std::vector<double>& got, const std::vector<double>& expected,
                  double x0 = 0.0) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t t = 0; t < got.size(); ++t) {
    const double steps_so_far = static_cast<double>(t + 1);
    EXPECT_NEAR(got[t], expected[t],
                kRoundOff * steps_so_far * std::abs(expected[t]) + 2 * kEps * std::abs(x0))
        << "t = " << t + 1;
  }
}

constexpr double kG = 0.7, kLr = 0.05;
constexpr int kSteps = 50;

TEST(UpdateRules, SgdAndMomentumFollowTheGeometricSum) {
  // Heavy ball: m_t = g(1 − βᵗ)/(1 − β); Nesterov: g + β m_t.
  const double beta = 0.5;
  std::vector<double> plain, heavy, nesterov;
  for (int t = 1; t <= kSteps; ++t) {
    const double m = kG * (1 - std::pow(beta, t)) / (1 - beta);
    plain.push_back(kLr * kG);
    heavy.push_back(kLr * m);
    nesterov.push_back(kLr * (kG + beta * m));
  }
  expect_steps(constant_gradient_steps("sgd", kLr, 1.0, kG, kSteps), plain);
  expect_steps(constant_gradient_steps("sgd:momentum=0.5", kLr, 1.0, kG, kSteps), heavy);
  expect_steps(constant_gradient_steps("sgd:momentum=0.5,nesterov=1", kLr, 1.0, kG, kSteps),
               nesterov);
}

TEST(UpdateRules, AdamFamilyUnderAConstantGradient) {
  const double b1 = 0.9, b2 = 0.999, eps = 0.1;
  std::vector<double> adam, adam_outside, nadam, amsgrad, adamax;
  for (int t = 1; t <= kSteps; ++t) {
    const double c1 = 1 - std::pow(b1, t), c2 = 1 - std::pow(b2, t);
    adam.push_back(kLr * kG / std::sqrt(kG * kG + eps));      // m̂ = g, v̂ = g²
    adam_outside.push_back(kLr * kG / (std::abs(kG) + eps));  // √v̂ + ε
    nadam.push_back(kLr * (b1 * kG + (1 - b1) * kG / c1) / std::sqrt(kG * kG + eps));
    amsgrad.push_back(kLr * kG * c1 / std::sqrt(kG * kG * c2 + eps));  // v_t increasing: v̂ = v
    adamax.push_back(kLr * kG / (std::abs(kG) + 1e-8));                // u = |g| + ε, m/c1 = g
  }
  expect_steps(constant_gradient_steps("adam", kLr, 0.0, kG, kSteps), adam);
  expect_steps(constant_gradient_steps("adam:eps_in_sqrt=0", kLr, 0.0, kG, kSteps), adam_outside);
  expect_steps(constant_gradient_steps("nadam", kLr, 0.0, kG, kSteps), nadam);
  expect_steps(constant_gradient_steps("amsgrad", kLr, 0.0, kG, kSteps), amsgrad);
  expect_steps(constant_gradient_steps("adamax", kLr, 0.0, kG, kSteps), adamax);
}

// Optimistic Adam under a constant gradient: m̂ = g and v̂ = g² every step, so s = g/(|g| + ε) and
// the steps are 2ηs (s₀ = 0), then 2ηs − ηs = ηs (Daskalakis et al.'s Algorithm 1).
TEST(UpdateRules, OptimisticAdamUnderAConstantGradient) {
  const double s = kG / (std::abs(kG) + 1e-8);
  std::vector<double> expected = {2 * kLr * s};
  for (int t = 2; t <= kSteps; ++t) expected.push_back(kLr * s);
  expect_steps(constant_gradient_steps("oadam", kLr, 0.0, kG, kSteps), expected);
}

TEST(UpdateRules, YogiGrowsItsSecondMomentAdditivelyUnderAConstantGradient) {
  // From v = 0 under g constant, v < g² for t < 1/(1 − β₂) = 100 steps: v_t = t(1 − β₂)g² (Adam's
  // would be g²(1 − β₂ᵗ)); m_t = g(1 − β₁ᵗ), no bias correction; the step η m_t/(√v_t + τ).
  const double b1 = 0.9, b2 = 0.99, tau = 1e-3;
  std::vector<double> yogi;
  for (int t = 1; t <= kSteps; ++t) {
    const double m = kG * (1 - std::pow(b1, t)), v = t * (1 - b2) * kG * kG;
    yogi.push_back(kLr * m / (std::sqrt(v) + tau));
  }
  expect_steps(constant_gradient_steps("yogi", kLr, 0.0, kG, kSteps), yogi);
}

TEST(UpdateRules, RadamIsSgdWithMomentumUntilRectifiedThenAdamLike) {
  // β₂ = 0.999: ρ_∞ = 1999 and ρ_t = 1999 − 2tβ₂ᵗ/(1 − β₂ᵗ) ≤ 5 for t ≤ 5 (ρ_5 ≈ 5.0 − …),
  // so the first steps are η m̂ = η g; later ones η g r_t √(1 − β₂ᵗ)/√(v_t + ε), v_t = g²(1 − β₂ᵗ).
  const double b2 = 0.999, eps = 0.1, rho_inf = 2 / (1 - b2) - 1;
  std::vector<double> expected;
  for (int t = 1; t <= kSteps; ++t) {
    const double c2 = 1 - std::pow(b2, t);
    const double rho = rho_inf - 2 * t * std::pow(b2, t) / c2;
    if (rho <= 5) {
      expected.push_back(kLr * kG);
      continue;
    }
    const double r =
        std::sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho));
    expected.push_back(kLr * kG * r * std::sqrt(c2) / std::sqrt(kG * kG * c2 + eps));
  }
  ASSERT_EQ(expected[0], kLr * kG);      // t = 1 is not rectified …
  ASSERT_NE(expected.back(), kLr * kG);  // … t = 50 is: both branches are exercised
  expect_steps(constant_gradient_steps("radam", kLr, 0.0, kG, kSteps), expected);
}

TEST(UpdateRules, AdaptiveLearningRateFamilyUnderAConstantGradient) {
  const double eps = 0.01;
  std::vector<double> adagrad, rmsprop;
  for (int t = 1; t <= kSteps; ++t) {
    adagrad.push_back(kLr * kG / std::sqrt(t * kG * kG + eps));  // G_t = t g²
    rmsprop.push_back(kLr * kG / std::sqrt(kG * kG * (1 - std::pow(0.9, t)) + eps));
  }
  expect_steps(constant_gradient_steps("adagrad", kLr, 0.0, kG, kSteps), adagrad);
  expect_steps(constant_gradient_steps("rmsprop", kLr, 0.0, kG, kSteps), rmsprop);
  // Adadelta, two steps by hand (ρ = 0.7): E_g = (1 − ρ)g², Δ₁ = √ε/√(E_g + ε)·g,
  // E_Δ = (1 − ρ)Δ₁²; then E_g = (1 − ρ²)g², Δ₂ = √(E_Δ + ε)/√(E_g + ε)·g.
  const double rho = 0.7;
  const double d1 = std::sqrt(eps) / std::sqrt((1 - rho) * kG * kG + eps) * kG;
  const double d2 =
      std::sqrt((1 - rho) * d1 * d1 + eps) / std::sqrt((1 - rho * rho) * kG * kG + eps) * kG;
  expect_steps(constant_gradient_steps("adadelta", kLr, 0.0, kG, 2), {kLr * d1, kLr * d2});
}

TEST(UpdateRules, ParameterFreeRulesTwoStepsByHand) {
  const double x0 = 3.0, r_eps = 1e-6 * (1 + x0);
  // DoG: r̄₁ = r_ε, G₁ = g²: step r_ε sign(g); then r̄₂ = max(r_ε, |x₁ − x₀|) = r_ε, G₂ = 2g².
  expect_steps(constant_gradient_steps("dog", 1.0, x0, kG, 2), {r_eps, r_eps / std::sqrt(2.0)}, x0);
  // DoWG: v₁ = r_ε²g², step r_ε²/(r_ε|g|)·g = r_ε; then v₂ = 2r_ε²g², step r_ε/√2.
  expect_steps(constant_gradient_steps("dowg", 1.0, x0, kG, 2), {r_eps, r_eps / std::sqrt(2.0)},
               x0);
  // Prodigy, λ = 0.01, d₀ = 1e-4, G² = g² (first gradient): S₁ = d₀²λ²g²,
  // η₁ = d₀²λ/√(d₀²g² + d₀²λ²g²) = d₀λ/(|g|√(1 + λ²)); N₁ = η₁·g·(x₀ − x₀) = 0, so d₂ = d₀ and
  // η₂ = d₀λ/(|g|√(1 + 2λ²)).
  const double lambda = 0.01, d0 = 1e-4;
  expect_steps(constant_gradient_steps("prodigy", lambda, x0, kG, 2),
               {d0 * lambda / std::sqrt(1 + lambda * lambda),
                d0 * lambda / std::sqrt(1 + 2 * lambda * lambda)},
               x0);
}

// Every column of a block follows exactly the path it follows alone: the chain engine's
// bit-identity across blocks and thread counts rests on this.
TEST(UpdateRules, ColumnsOfABlockAreIndependentBitForBit) {
  constexpr int kDim = 3, kColumns = 8;
  for (const std::string& name : update_rule_names()) {
    const auto spec = theory::parse_optimiser(name, OptimiserRole::server);
    const auto rule = make_update_rule(spec, 0.1);
    OwnedRuleState block_state(*rule, kDim, kColumns);
    std::vector<double> block(kDim * kColumns), grad(kDim * kColumns);
    for (int i = 0; i < kDim * kColumns; ++i) block[i] = std::sin(1.0 + i);
    rule->start(kDim, kColumns, block.data(), block_state.view());
    std::vector<std::vector<double>> alone(kColumns, std::vector<double>(kDim));
    std::vector<std::unique_ptr<OwnedRuleState>> alone_state;
    for (int c = 0; c < kColumns; ++c) {
      for (int i = 0; i < kDim; ++i) alone[c][i] = block[i * kColumns + c];
      alone_state.push_back(std::make_unique<OwnedRuleState>(*rule, kDim, 1));
      rule->start(kDim, 1, alone[c].data(), alone_state[c]->view());
    }
    for (int t = 1; t <= 20; ++t) {
      for (int i = 0; i < kDim * kColumns; ++i) grad[i] = std::cos(0.3 * t + i) + block[i];
      std::vector<std::vector<double>> alone_grad(kColumns, std::vector<double>(kDim));
      for (int c = 0; c < kColumns; ++c) {
        for (int i = 0; i < kDim; ++i) alone_grad[c][i] = grad[i * kColumns + c];
        rule->update(kDim, 1, 1, t, alone[c].data(), alone_grad[c].data(), alone_state[c]->view());
      }
      rule->update(kDim, kColumns, kColumns, t, block.data(), grad.data(), block_state.view());
    }
    for (int c = 0; c < kColumns; ++c) {
      for (int i = 0; i < kDim; ++i) {
        EXPECT_EQ(block[i * kColumns + c], alone[c][i]) << name << " column " << c;
        EXPECT_TRUE(std::isfinite(block[i * kColumns + c])) << name;
      }
    }
  }
}

TEST(UpdateRules, EveryTableOptimiserHasARuleAndOthersNameTheFlag) {
  for (const auto& kind : theory::optimiser_kinds()) {
    if (kind.name == "fedexp" || kind.name == "fedprox") continue;  // rounds, not rules
    const auto spec = theory::parse_optimiser(std::string(kind.name), kind.role);
    EXPECT_NO_THROW(make_update_rule(spec, 0.1)) << kind.name;
  }
  const auto fedexp = theory::parse_optimiser("fedexp", OptimiserRole::server);
  try {
    make_update_rule(fedexp, 1.0);
    ADD_FAILURE() << "fedexp has no update rule";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--server"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fedverify::estimators
