// Claim logistic.stochastic-bias-scaling.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/logistic/richardson_rows.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::claims::logistic {
namespace {

constexpr const char* kId = "logistic.stochastic-bias-scaling";

constexpr const char* kCard = R"(
Summary: The stochasticity bias b_s falls like 1/N and does not depend on H (breast-cancer, d = 31,
  for SGD and Scaffold; d = 3 for FedAvg).
Statement: The stochasticity bias coefficient b_s decreases like 1/N and does not depend on H, for
  FedAvg and for Scaffold, with heterogeneous logistic clients: doubling every client halves it,
  and more local steps leave it unchanged (FedAvg's first-order coefficient changes by b_h only).
Formula: β₁ = (H−1) b_h + b_s (FedAvg), b_s (Scaffold), b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄];
  duplicating every client keeps 𝐇, ∇³f, C̄ and b_h, so b_s(2N) = b_s(N)/2
THEORY: (F3), (S3), §6, §8
Setting: Default grid: Scaffold's rows on lr-breast-cancer (d = 31, N = 10; problems/
  research_logistic_problems.hpp) and lr-breast-cancer-x2 (the same clients twice, N = 20): 1/N by
  SGD (H = 1, where FedAvg and Scaffold coincide) at γL = ${research_sgd_gamma_l} and twice that,
  "free of H" by Scaffold at H = ${research_h}, γL = ${research_gamma_l} and twice that, against
  that SGD pair (the same γH); FedAvg's rows on lr-hetero4 (d = 3, N = 4, minibatch 1) and
  lr-hetero4x2 (N = 8) (problems/default_logistic_problems.hpp) at H = ${h}, γL = ${gamma_l} and
  twice that, against SGD on lr-hetero4 at the same steps. Quick grid: Scaffold's rows as
  FedAvg's, on lr-hetero4. Each setting is a Richardson pair (γ, 2γ; logistic/measurement.hpp) measured
  with the linearised control variate (THEORY (L3)): 40 replications of 8 chains recording 24
  (breast-cancer) or 192 (d = 3) autocorrelation times each, whose per-replication combinations
  2β_g(γ) − β_g(2γ) are i.i.d. and independent across settings.
Decision: α = 0.01 family-wise, ${alpha_per_test} per test: the difference of the measured
  coefficients agrees with the difference of the predicted ones (kit::first_order) within the margin
  on every coordinate (decide.hpp (e), Bonferroni over d, Student's t on 39 degrees of freedom): 1/N
  (Scaffold, FedAvg): β₁(N) − 2β₁(2N) = P(N) − 2P(2N) (= 0 resp. −(H−1)b_h: b_s ∝ 1/N); H
  (Scaffold, FedAvg): β₁(H) − β₁(H = 1) = P(H) − P(1) (= 0 resp. (H−1)b_h: b_s free of
  H); and every twin's mean agrees with its exact mean (α = 1e-4). Each row also reports how many
  standard errors separate the prediction from the alternative (b_s not ∝ 1/N: difference
  −b_s(N); b_s ∝ H: difference (H−1)b_s) — the test's resolution.
Sample row:
  | scaffold, b_s ∝ 1/N: β₁(N = 4) − 2β₁(N = 8), H = 3, γL = 0.05 and 0.1 | [-0.0000, -0.0000,
  -0.0000] | (agreement p = 1.000; b_s not ∝ 1/N at 98.0 SE; worst coordinate off by 2.3 % of the
  gap) | ✅ holds (equivalent) |
Notes: H = ${h} against H = 1 puts the alternative "b_s ∝ H" at 2·b_s from the prediction on d = 3.
  On breast-cancer FedAvg's Richardson combinations at H ≥ 2 carry a remainder of 3–15 % of ‖b_s‖
  at γL = 0.25–1 (the N-free higher-order terms against b_s ∝ 1/N), so its rows stay on d = 3;
  Scaffold's own 1/N pair at H = 2 (N = 20) was measured 3.6 % off there, so 1/N is shown by SGD.
Margin: δ = ${margin} (d = 3 rows) and ${research_margin} (breast-cancer rows) of the distance
  between the prediction and the alternative the row excludes (‖b_s(N)‖ for 1/N, ‖(H−1)b_s(N)‖ for
  H), on every coordinate. On d = 3 the control-variate Richardson coefficients were measured within
  0.4–2.3 % of it at γL = 0.05. On breast-cancer each row is a difference of two coefficients that
  the issue asks to confirm within 5 % of their own norms, which bounds the difference by 5 % + 2 ·
  2.5 % (1/N) or 5 % + 5 % (H) = 10 % of the gap; measured 1.7–2.8 % off with standard errors
  ≈ 1.1 %. The alternatives are 100 % away.
)";
constexpr double kGammaL = 0.05;
constexpr int kTests = 4;
// Control-variate budget: 8 times the standard one (logistic/measurement.hpp), ≈ 2 s on 2 cores for
// the five pairs on d = 3.
constexpr double kBudgetFactor = 8.0;
// Equivalence margin, relative to the distance between the prediction and the alternative the
// row excludes; declared in the card.
constexpr double kMargin = 0.05;
// The margin of the breast-cancer rows (default grid), relative to the same gap. Each row is a
// difference of two control-variate Richardson coefficients, each of which the issue asks to
// confirm within 5 % of its own norm (logistic.fedavg-stochastic-bias, logistic.scaffold-bias):
// then |β₁(N) − 2β₁(2N) − prediction| ≤ 5 %‖b_s(N)‖ + 2 · 5 %‖b_s(2N)‖ = 10 %‖b_s(N)‖, and
// |β₁(H = 2) − β₁(H = 1) − prediction| ≤ 5 % + 5 % of ‖b_s‖ = 10 % of the gap ‖(H − 1)b_s‖.
// Measured there: the differences sit 1.7–3.6 % off (the combinations' o(γ) remainders at γL =
// 0.25–1 add up), with standard errors of ≈ 1.1 %, so a 5 % margin on the difference itself would
// need ≈ 30–40× the budget. The alternatives the rows exclude are 100 % away either way.
constexpr double kResearchMargin = 0.10;
// H of the compared settings: H = 3 against H = 1 puts the alternative "b_s ∝ H" at 2·b_s
// from the prediction (≈ 5 standard errors), H = 2 only at b_s (≈ 3, too little power).
constexpr int kLocalSteps = 3;
// Scaffold's rows on breast-cancer (default grid): H = 2 against H = 1 puts "b_s ∝ H" at b_s,
// ≈ 250 standard errors of the difference there; γL = 0.25 and 0.5 as logistic.scaffold-bias;
// the standard control-variate budget (≈ 0.25 % of ‖b_s‖ per coordinate and run).
constexpr int kResearchLocalSteps = 2;
constexpr double kResearchGammaL = 0.25;
constexpr double kResearchBudgetFactor = 1.0;

using theory::Algorithm;

// The control-variate Richardson pair of `algorithm` at H = h, γL = gamma_l and twice that.
RichardsonPair pair(const Context& ctx, const NamedProblem& np, Algorithm algorithm, int h,
                    double gamma_l, double budget) {
  return richardson_pair(np, algorithm, gamma_l, h, ctx, kId, control_variate_budget(budget));
}

// The two rows of `algorithm` on lr-hetero4 / lr-hetero4x2 (d = 3, N = 4 and 8) at H = 3:
// b_s ∝ 1/N and b_s free of H. `sgd` is the H = 1 pair on lr-hetero4.
void small_rows(const Context& ctx, Algorithm algorithm, const RichardsonPair& sgd, double alpha,
                ClaimResult& out) {
  const auto& defaults = default_logistic_problems();
  const Vector b_s = theory::expansion_coefficients(*defaults.small.problem).b_stochastic;
  const RichardsonPair n1 =
      pair(ctx, defaults.small, algorithm, kLocalSteps, kGammaL, kBudgetFactor);
  const RichardsonPair n2 =
      pair(ctx, defaults.small_doubled, algorithm, kLocalSteps, kGammaL, kBudgetFactor);
  const std::string name = theory::to_string(algorithm);
  // Under "b_s does not shrink with N" the difference would be the prediction − b_s(N).
  out.rows.push_back(
      combination_row(fmt::format("{}, b_s ∝ 1/N: β₁(N = 4) − 2β₁(N = 8), H = {}, γL = {} and {}",
                                  name, kLocalSteps, kGammaL, 2 * kGammaL),
                      kMargin, {{1.0, &n1}, {-2.0, &n2}}, n1.predicted - 2.0 * n2.predicted - b_s,
                      "b_s not ∝ 1/N", alpha));
  // Under "b_s ∝ H" the difference would be the prediction + (H − 1) b_s(N).
  out.rows.push_back(combination_row(
      fmt::format("{}, b_s free of H: β₁(H = {}) − β₁(H = 1), N = 4, γL = {} and {}", name,
                  kLocalSteps, kGammaL, 2 * kGammaL),
      kMargin, {{1.0, &n1}, {-1.0, &sgd}}, n1.predicted - sgd.predicted + (kLocalSteps - 1.0) * b_s,
      "b_s ∝ H", alpha));
}

// The default grid's rows on breast-cancer (d = 31, N = 10) and the same clients twice (N = 20):
// 1/N by SGD (H = 1, where FedAvg and Scaffold coincide) at γL = 0.5 and 1, and "free of H" by
// Scaffold at H = 2, γL = 0.25 and 0.5 against that SGD pair — the same γH, the step of a round,
// where each combination is within ≈ 1 % of b_s (logistic.fedavg-stochastic-bias,
// logistic.scaffold-bias). Scaffold's own 1/N pair at H = 2 was measured 3.6 % off on N = 20, too
// close to the margin at an affordable budget; FedAvg's combinations at H ≥ 2 are 3–15 % off.
void research_rows(const Context& ctx, double alpha, ClaimResult& out) {
  const auto& research = research_logistic_problems();
  const NamedProblem& base = research.breast_cancer;
  const Vector b_s = theory::expansion_coefficients(*base.problem).b_stochastic;
  const double sgd_gamma_l = kResearchLocalSteps * kResearchGammaL;
  const RichardsonPair sgd =
      pair(ctx, base, Algorithm::fedavg, 1, sgd_gamma_l, kResearchBudgetFactor);
  const RichardsonPair sgd2 = pair(ctx, research.breast_cancer_doubled, Algorithm::fedavg, 1,
                                   sgd_gamma_l, kResearchBudgetFactor);
  const RichardsonPair scaffold = pair(ctx, base, Algorithm::scaffold, kResearchLocalSteps,
                                       kResearchGammaL, kResearchBudgetFactor);
  out.rows.push_back(combination_row(
      fmt::format("{}, sgd (H = 1), b_s ∝ 1/N: β₁(N = 10) − 2β₁(N = 20), γL = {} and {}", base.name,
                  sgd_gamma_l, 2 * sgd_gamma_l),
      kResearchMargin, {{1.0, &sgd}, {-2.0, &sgd2}}, sgd.predicted - 2.0 * sgd2.predicted - b_s,
      "b_s not ∝ 1/N", alpha));
  out.rows.push_back(combination_row(
      fmt::format("{}, scaffold, b_s free of H: β₁(H = {}, γL = {} and {}) − β₁(H = 1, γL = {} "
                  "and {}), N = 10",
                  base.name, kResearchLocalSteps, kResearchGammaL, 2 * kResearchGammaL, sgd_gamma_l,
                  2 * sgd_gamma_l),
      kResearchMargin, {{1.0, &scaffold}, {-1.0, &sgd}},
      scaffold.predicted - sgd.predicted + (kResearchLocalSteps - 1.0) * b_s, "b_s ∝ H", alpha));
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const double alpha = kFamilyAlpha / kTests;
  const auto& defaults = default_logistic_problems();
  const RichardsonPair sgd =
      pair(ctx, defaults.small, Algorithm::fedavg, 1, kGammaL, kBudgetFactor);
  if (ctx.options.quick) {
    small_rows(ctx, Algorithm::scaffold, sgd, alpha, out);
  } else {
    research_rows(ctx, alpha, out);
  }
  small_rows(ctx, Algorithm::fedavg, sgd, alpha, out);
  out.note = fmt::format(
      "b_s(N = 4) = {}; H = 1 is SGD for both algorithms (one shared run).",
      kit::vec_str(theory::expansion_coefficients(*defaults.small.problem).b_stochastic));
  if (!ctx.options.quick) {
    out.note += fmt::format(
        " ‖b_s(lr-breast-cancer)‖ = {:.4f}.",
        theory::expansion_coefficients(*research_logistic_problems().breast_cancer.problem)
            .b_stochastic.norm());
  }
  return out;
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::logistic, 5},
                    .card = kCard,
                    .values = {{"gamma_l", kGammaL},
                               {"h", kLocalSteps},
                               {"alpha_per_test", kFamilyAlpha / kTests},
                               {"margin", kMargin},
                               {"research_margin", kResearchMargin},
                               {"research_h", kResearchLocalSteps},
                               {"research_gamma_l", kResearchGammaL},
                               {"research_sgd_gamma_l", kResearchLocalSteps* kResearchGammaL}},
                    .sweep = true,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::logistic
