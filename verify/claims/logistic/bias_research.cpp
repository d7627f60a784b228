#include "verify/claims/logistic/bias_research.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/logistic/budget_plan.hpp"
#include "verify/claims/logistic/richardson_rows.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::claims::logistic::research {
namespace {

using theory::Algorithm;

// The three rows at `factor` times the standard budget, their seeds named by `seed_id`.
std::vector<Row> rows(const Context& ctx, Algorithm algorithm, double factor, const char* seed_id) {
  const auto& problems = research_logistic_problems();
  const NamedProblem& base = problems.breast_cancer;
  const Vector b_s = theory::expansion_coefficients(*base.problem).b_stochastic;
  const double alpha = kFamilyAlpha / kTests;
  const MeasureOptions budget = control_variate_budget(factor);
  const RichardsonPair n10 = richardson_pair(base, algorithm, kGammaL, kH, ctx, seed_id, budget);
  const RichardsonPair n20 =
      richardson_pair(problems.breast_cancer_doubled, algorithm, kGammaL, kH, ctx, seed_id, budget);
  const RichardsonPair sgd =
      richardson_pair(base, Algorithm::fedavg, kSgdGammaL, 1, ctx, seed_id, budget);
  const std::string name = theory::to_string(algorithm);
  const std::string steps = fmt::format("γL = {} and {}", kGammaL, 2 * kGammaL);
  std::vector<Row> out;
  // Without the ∇³f term the coefficient would be the quadratic theory's ((H − 1) b_h, or 0).
  out.push_back(combination_row(
      fmt::format("{}, {}, β₁ = {}, H = {}, {}", base.name, name,
                  algorithm == Algorithm::scaffold ? "b_s" : "(H−1)b_h + b_s", kH, steps),
      kMargin, {{1.0, &n10}}, n10.predicted - b_s, "no b_s", alpha));
  // Under "b_s does not shrink with N" the difference would be the prediction − b_s(N).
  out.push_back(
      combination_row(fmt::format("{}, {}, b_s ∝ 1/N: β₁(N = 10) − 2β₁(N = 20), H = {}, {}",
                                  base.name, name, kH, steps),
                      kMargin, {{1.0, &n10}, {-2.0, &n20}},
                      n10.predicted - 2.0 * n20.predicted - b_s, "b_s not ∝ 1/N", alpha));
  // Under "b_s ∝ H" the difference would be the prediction + (H − 1) b_s.
  out.push_back(combination_row(
      fmt::format("{}, {}, b_s free of H: β₁(H = {}, {}) − β₁(H = 1, γL = {} and {}), N = 10",
                  base.name, name, kH, steps, kSgdGammaL, 2 * kSgdGammaL),
      kMargin, {{1.0, &n10}, {-1.0, &sgd}}, n10.predicted - sgd.predicted + (kH - 1.0) * b_s,
      "b_s ∝ H", alpha));
  return out;
}

}  // namespace

bool register_bias_research(const char* id, int position, std::string_view card,
                            Algorithm algorithm) {
  CardValues values = {{"h", kH},
                       {"gamma_l", kGammaL},
                       {"sgd_gamma_l", kSgdGammaL},
                       {"pilot_times", control_variate_budget(kPilotFactor).mixing_times},
                       {"cap_times", control_variate_budget(kCapFactor).mixing_times},
                       {"quick_times", control_variate_budget(kQuickFactor).mixing_times},
                       {"alpha_per_test", fmt::format("{:.2g}", kFamilyAlpha / kTests)},
                       {"margin_percent", 100.0 * kMargin}};
  return register_claim({.id = id,
                         .order = {Section::logistic, position},
                         .card = card,
                         .values = std::move(values),
                         .opt_in = true,
                         .sweep = true,
                         .run = [algorithm, id](const Context& ctx) {
                           return run_bias_research(ctx, algorithm, id);
                         }});
}

ClaimResult run_bias_research(const Context& ctx, Algorithm algorithm, const char* claim_id) {
  ClaimResult out;
  const NamedProblem& base = research_logistic_problems().breast_cancer;
  const auto k = theory::expansion_coefficients(*base.problem);
  const Vector beta1 = predicted_coefficient(k, algorithm, {kGammaL / k.constants.l, kH}, ctx);
  out.note = fmt::format("‖b_s(lr-breast-cancer)‖ = {:.4f}, ‖β₁(H = {})‖ = {:.4f}.",
                         k.b_stochastic.norm(), kH, beta1.norm());
  if (ctx.options.quick) {
    out.rows = rows(ctx, algorithm, kQuickFactor, claim_id);
    out.note += fmt::format(" Quick grid: {}× the standard budget, no pilot.", kQuickFactor);
    return out;
  }
  const std::string pilot_id = std::string(claim_id) + " (pilot)";
  const BudgetPlan plan = stein_budget_plan(rows(ctx, algorithm, kPilotFactor, pilot_id.c_str()),
                                            kPilotFactor, kCapFactor);
  out.rows = rows(ctx, algorithm, plan.factor, claim_id);
  out.note += " Budget (Stein's two-stage rule): " + plan.text() + ".";
  return out;
}

}  // namespace fedverify::claims::logistic::research
