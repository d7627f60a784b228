// The exact branches of L2GD+, L2SGD+, L2SGD++ and L2SGD (theory/algorithms/l2gd_plus.hpp, THEORY
// (P6), (P7)) against the update rule written out on the models and memories themselves: for a
// fixed sequence of draws (coin, working set, terms), the rule run from z⁰ = 0 and the branch maps
// run from e₀ = z⁰ − z*(λ) must agree, z^k − z* = e_k, to round-off. Then what the rules imply: no
// neighbourhood with control variates (E‖x^k − x(λ)‖² → 0 geometrically, ρ₂ < 1), a positive floor
// without (L2SGD).
#include "theory/algorithms/l2gd_plus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

constexpr int kClients = 3, kDim = 2;

const QuadraticProblem& problem() {
  static const QuadraticProblem q = verify::quadratic(kDim, kClients, 0.0, 5);
  return q;
}

// One draw: the coin, the working clients and each one's term.
struct Draw {
  bool average = false;
  std::vector<int> term;  // −1: not working
};

// The rule of the header on z = (x, J, Ψ), written directly (no matrices).
struct Rule {
  const QuadraticProblem& q;
  L2gdSetting s;
  FiniteSumSplit split;
  VarianceReducedRule rule;
  Matrix x = Matrix::Zero(kDim, kClients);
  std::vector<Matrix> j = std::vector<Matrix>(kClients, Matrix::Zero(kDim, split.terms));
  Matrix psi = Matrix::Zero(kDim, kClients);

  Vector grad(int i, int t, const Vector& at) const {
    const double sign = split.terms == 1 ? 0.0 : (t % 2 == 0 ? 1.0 : -1.0);
    return (1 + split.spread * sign) * q.client(i).hessian * (at - q.client(i).optimum);
  }
  void step(const Draw& draw) {
    const int n = kClients;
    const double work = rule.working == 0 ? 1.0 : static_cast<double>(rule.working) / n;
    const Matrix before = x;
    const Vector bar = before.rowwise().mean();
    for (int i = 0; i < n; ++i) {
      const Vector mem = j[i].rowwise().mean() + psi.col(i);
      if (!rule.control_variates) {
        if (draw.average) {
          x.col(i) -= s.alpha * s.lambda / (n * s.p) * (before.col(i) - bar);
        } else if (draw.term[i] >= 0) {
          x.col(i) -= s.alpha / (n * (1 - s.p)) * grad(i, draw.term[i], before.col(i));
        }
        continue;
      }
      if (draw.average) {
        const Vector pull = s.lambda * (before.col(i) - bar);
        x.col(i) -= s.alpha / n * ((pull - psi.col(i)) / s.p + mem);
        psi.col(i) = rule.psi_after_step ? Vector(s.lambda * (x.col(i) - bar)) : pull;
      } else if (draw.term[i] >= 0) {
        const int t = draw.term[i];
        const Vector g = grad(i, t, before.col(i));
        x.col(i) -= s.alpha / n * ((g - j[i].col(t)) / (work * (1 - s.p)) + mem);
        j[i].col(t) = g;
      } else {
        x.col(i) -= s.alpha / n * mem;
      }
    }
  }
};

// The branch of `variance_reduced_branches` that `draw` selects (their enumeration order: working
// sets lexicographic, then the terms of the working clients in set order, first fastest).
int branch_index(const Draw& draw, const VarianceReducedRule& rule, int m,
                 const std::vector<std::vector<int>>& sets, int branches) {
  if (draw.average) return branches - 1;
  int tau = rule.working == 0 ? kClients : rule.working;
  int draws = 1;
  for (int a = 0; a < tau; ++a) draws *= m;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    bool same = true;
    for (int i = 0; i < kClients; ++i) {
      const bool in = std::find(sets[k].begin(), sets[k].end(), i) != sets[k].end();
      same = same && (in == (draw.term[i] >= 0));
    }
    if (!same) continue;
    int code = 0;
    for (int a = tau - 1; a >= 0; --a) code = code * m + draw.term[sets[k][a]];
    return static_cast<int>(k) * draws + code;
  }
  return -1;
}

std::vector<std::vector<int>> working_sets(int tau) {
  std::vector<std::vector<int>> out;
  for (int a = 0; a < kClients; ++a)
    for (int b = a + 1; b < kClients; ++b)
      for (int c = b + 1; c < kClients; ++c) out.push_back({a, b, c});
  if (tau == 3) return out;
  out.clear();
  for (int a = 0; a < kClients; ++a)
    for (int b = a + 1; b < kClients; ++b) out.push_back({a, b});
  return out;  // τ = 2 for n = 3
}

void expect_rule_equals_branches(const FiniteSumSplit& split, const VarianceReducedRule& rule) {
  const L2gdSetting s{0.7, 0.3, 0.4};
  const std::vector<AffineBranch> branches = variance_reduced_branches(problem(), s, split, rule);
  Vector e = variance_reduced_start(problem(), s, split);
  const Matrix x_lambda = personalised_optimum(problem(), s.lambda);
  Rule direct{problem(), s, split, rule};
  const int tau = rule.working == 0 ? kClients : rule.working;
  const auto sets = working_sets(tau);
  for (int k = 0; k < 40; ++k) {
    Draw draw;
    draw.average = k % 3 == 2 || k % 7 == 0;
    draw.term.assign(kClients, -1);
    const std::vector<int>& set = sets[(5 * k + 1) % sets.size()];
    for (std::size_t a = 0; a < set.size(); ++a) {
      draw.term[set[a]] = static_cast<int>((k + 2 * a) % split.terms);
    }
    const int b = branch_index(draw, rule, split.terms, sets, static_cast<int>(branches.size()));
    ASSERT_GE(b, 0);
    e = branches[b].map * e + branches[b].offset;
    direct.step(draw);
    // Forty steps of maps with norms ≲ 2 from errors of size ≲ 5: round-off ≪ 1e-10.
    EXPECT_LT((flatten(direct.x - x_lambda) - e.head(kClients * kDim)).norm(), 1e-10)
        << "step " << k;
  }
}

TEST(VarianceReducedBranches, L2gdPlusIsTheRuleOnEveryDraw) {
  expect_rule_equals_branches({1, 0}, {});
}

TEST(VarianceReducedBranches, L2sgdPlusWithTwoTermsIsTheRule) {
  expect_rule_equals_branches({2, 0.5}, {});
}

TEST(VarianceReducedBranches, PsiAfterTheStepIsTheRule) {
  expect_rule_equals_branches({2, 0.5}, {.psi_after_step = true});
}

TEST(VarianceReducedBranches, L2sgdPlusPlusWithTwoWorkingClientsIsTheRule) {
  expect_rule_equals_branches({2, 0.5}, {.working = 2});
}

TEST(VarianceReducedBranches, L2sgdWithoutControlVariatesIsTheRule) {
  expect_rule_equals_branches({2, 0.5}, {.control_variates = false});
}

// With control variates the chain is linear in its error: E‖x^k − x(λ)‖² falls below 1e-20 of its
// start; without (L2SGD) it levels off at a floor above 1e-6 of it.
TEST(VarianceReducedBranches, ControlVariatesRemoveTheNeighbourhood) {
  const FiniteSumSplit split{2, 0.5};
  const double l_tilde = 1.5 * problem().smoothness();
  L2gdSetting s{0.7, 0.0, 0.0};
  s.p = s.lambda / (s.lambda + l_tilde);
  s.alpha = variance_reduced_constants(problem().strong_convexity(), l_tilde, kClients, 2, 1.0,
                                       {s.lambda, s.p, 1.0})
                .alpha_max;
  const Vector e0 = variance_reduced_start(problem(), s, split);
  const double start = e0.head(kClients * kDim).squaredNorm();
  for (const bool cv : {true, false}) {
    const auto branches = variance_reduced_branches(problem(), s, split, {.control_variates = cv});
    BranchedMoments m(branches, e0);
    for (int k = 0; k < 4000; ++k) m.step();
    const double end = m.mean_square(0, kClients * kDim);
    if (cv) {
      EXPECT_LT(end, 1e-20 * start);
      EXPECT_LT(second_moment_radius(branches), 1.0);
    } else {
      EXPECT_GT(end, 1e-6 * start);
    }
  }
}

TEST(VarianceReducedConstants, LargestConstantInvertsTheBound) {
  const VarianceReducedConstants k =
      variance_reduced_constants(0.1, 1.5, 4, 2, 1.0, {0.5, 0.25, 0.5});
  // 𝓛̃ = max{1.5/0.75, 2}/4 = 0.5; μ-term 1 − 0.5·0.1/4 = 0.9875; refreshes 0.375, 0.25.
  EXPECT_DOUBLE_EQ(k.l_cal, 0.5);
  EXPECT_DOUBLE_EQ(k.alpha_max, 0.5);
  EXPECT_DOUBLE_EQ(k.mu_term, 0.9875);
  EXPECT_DOUBLE_EQ(largest_rate_constant(k, 0.95), 1.0);
  EXPECT_NEAR(largest_rate_constant(k, 0.995), 0.005 / 0.25, 1e-15);
  EXPECT_NEAR(variance_reduced_rate_bound(k, 0.02), 0.995, 1e-15);
  EXPECT_EQ(largest_rate_constant(k, 1.0), 0.0);
}

}  // namespace
}  // namespace fedverify::theory
