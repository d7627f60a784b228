// Claim logistic.fedavg-stochastic-bias.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <cmath>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/logistic/richardson_rows.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"

namespace fedverify::claims::logistic {
namespace {

constexpr const char* kId = "logistic.fedavg-stochastic-bias";

constexpr const char* kCard = R"(
Summary: On logistic regression SGD (FedAvg at H = 1) has the stationary bias γb_s from ∇³f,
  confirmed within 5 % on breast-cancer (d = 31).
Statement: The stationary bias of FedAvg on logistic regression is γ((H−1) b_h + b_s) to first
  order; at H = 1 it is γ b_s, non-zero because ∇³f ≠ 0.
Formula: E_π[x] − x* = γ(H−1) b_h + γ b_s + O(γ²H² + γ^{3/2}H);  b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄]
THEORY: (F3), (L3), §6, §8
Setting: lr-breast-cancer (problems/research_logistic_problems.hpp: breast-cancer, d = 31, N = 10
  Dirichlet(0.5) clients, λ = 0.05, B = 1); FedAvg at H = 1, γL = 0.5, measured at γ and 2γ with the
  linearised control variate (THEORY (L3)): 40 replications of 8 chains, 24 autocorrelation times
  each (logistic/measurement.hpp, control_variate_budget). Quick grid: lr-hetero (d = 3, N = 10) at the
  same steps with 4× the autocorrelation times (remainder 1.8 %).
Decision: Richardson combination 2β(γ) − β(2γ) of the scaled bias β = (mean(x − y) + m_lin − x*)/γ
  at γ and 2γ against the predicted b_s: every coordinate within 5 % of ‖b_s‖ (decide.hpp (e),
  Bonferroni over the 31 coordinates, Student's t on 39 degrees of freedom), α = 0.005 (family
  0.01); the twin's own mean must agree with its exact mean m_lin (Hotelling, α = 1e-4) at both
  steps
Sample row:
  | lr-breast-cancer, fedavg, γL = 0.5 and 1, H = 1 | 2β(γ) − β(2γ) = [-0.0095, -0.0054, -0.0099, …]
  ± 5 % of ‖β₁‖ = 0.0487 per coordinate | [-0.0096±0.0001, -0.0055±0.0001, -0.0100±0.0001, …]
  (|β₁|/SE = 440, worst coordinate off by 1.0 % of ‖β₁‖) | ✅ holds (equivalent) |
Notes: The predicted coefficient comes from kit::first_order, so a planted formula error reaches it.
  Without the control variate the same budget gives a standard error of ≈ 110 % of ‖b_s‖ at γL = 0.2
  (measured with simulate, 128 chains); with it ≈ 1.6 %. The H = 2 row is not here: FedAvg's
  Richardson combination at γL = 0.5 is off by 15 % (4.5 % at 0.25), a remainder the (F3) bound
  allows (its γ^{3/2}H term) but too slow to converge for a 5 % margin at this budget.
Margin: ${cv_margin}
)";

using theory::Algorithm;

// Figure: bias/γ projected on the predicted coefficient's direction, against γ, at H = 2.
void bias_figure(const Context& ctx, const NamedProblem& np, ClaimResult& out) {
  const auto k = theory::expansion_coefficients(*np.problem);
  const theory::RunSetting step{0.1 / k.constants.l, 2};
  const Vector beta1 = predicted_coefficient(k, Algorithm::fedavg, step, ctx);
  const Vector u = beta1.normalized();
  PlotSpec plot;
  plot.title = "Logistic (lr-hetero, H = 2): stationary bias / γ";
  plot.xlabel = "γ";
  plot.ylabel = "uᵀ(E[x] − x*)/γ, u = direction of (H−1)b_h + b_s";
  plot.log_x = true;
  const std::vector<double> gammas = {0.5 * step.gamma, step.gamma, 2 * step.gamma};
  for (Algorithm a : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
    Series s;
    s.title = theory::to_string(a);
    for (std::size_t i = 0; i < gammas.size(); ++i) {
      const auto m =
          measure(np, k, a, {gammas[i], 2}, ctx,
                  kit::row_seed(ctx, kId,
                                fmt::format("figure, {}, γ = {}", theory::to_string(a), gammas[i])),
                  control_variate_budget());
      if (m.diverged()) continue;
      s.x.push_back(gammas[i]);
      s.y.push_back(u.dot(m.mean));
      s.err.push_back(2.0 * std::sqrt(u.dot(m.mean_cov * u)));
    }
    plot.series.push_back(s);
  }
  plot.series.push_back({"(H−1) b_h + b_s (FedAvg)",
                         {gammas.front(), gammas.back()},
                         {u.dot(beta1), u.dot(beta1)},
                         "lines"});
  const Vector bs = k.b_stochastic;
  plot.series.push_back(
      {"b_s (Scaffold)", {gammas.front(), gammas.back()}, {u.dot(bs), u.dot(bs)}, "lines"});
  kit::add_figure(
      ctx, plot, "logistic_bias_over_gamma.svg",
      "Measured bias/γ (projection on the predicted direction) of FedAvg, Scaffold and "
      "FedRR on lr-hetero at H = 2 (linearised control variate; error bars ±2 s.e. over "
      "40 replications) against "
      "the first-order coefficients; FedRR's bias/γ tends to 0",
      out);
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const NamedProblem& np = bias_problem(ctx);
  const double alpha = kFamilyAlpha / 2.0;
  // γL = 0.5 and 1 with the control variate: the single-step scaled bias is 5 % and 12 % off b_s
  // there (the O(γ) remainder), the Richardson combination ≈ 1 % (measured at H = 1).
  const MeasureOptions cv = control_variate_budget(ctx.options.quick ? 4.0 : 1.0);
  out.rows.push_back(
      richardson_row(np, Algorithm::fedavg, 0.5, 1, ctx, kId, alpha, nullptr, "", cv));
  if (ctx.figures && out.rows[0].passed) {
    bias_figure(ctx, default_logistic_problems().heterogeneous, out);
  }
  out.note =
      "The second-order coefficient (β(2γ) − β(γ))/γ is measured, not predicted (no source gives "
      "it); see each row.";
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::logistic, 1},
                                        .card = kCard,
                                        .values = {{"cv_margin", control_variate_margin_text()}},
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::logistic
