// Claim optimisers.server-step-momentum (THEORY O2).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/quadratic/common.hpp"

namespace fedverify::claims::optimisers {
namespace {

constexpr const char* kId = "optimisers.server-step-momentum";

constexpr const char* kCard = R"(
Summary: A server step η_g and momentum β keep FedAvg's mean and scale its covariance by η_g/(1 −
  β).
Statement: A server step η_g and server heavy-ball or Nesterov momentum β leave FedAvg's stationary
  mean unchanged (exactly, on quadratics), and scale the first-order stationary covariance by
  η_g/(1 − β).
Formula: E_π[x] = FedAvg's (the fixed point of x ↦ x − η_g(x − T(x)) is T's);
  E_π[(x−x*)(x−x*)ᵀ] = (η_g γ/((1 − β) N)) 𝒜C̄ + O(γ²)
THEORY: (O0), (O2)
Setting: the default quadratic problems q-small and q-gen5; --algo fedopt with --server
  sgd:lr=1.5, sgd:lr=0.5,momentum=0.5, sgd:lr=0.5,momentum=0.5,nesterov=1 and (full grid)
  sgd:lr=1,momentum=0.9; H = 5 (quick) or H ∈ {1, 5}; γL on a geometric grid over [1e-4, 1e-1]
  (5 or 10 points). Exact moments on the augmented state (x, m) (theory/algorithms/fedopt.hpp),
  no Monte Carlo.
Decision: mean: max over the grid of ‖mean − FedAvg's exact mean‖ ≤ ${ulps} · κ(𝐃) · ε ·
  max(1, ‖x*‖) (κ the condition number of the solved round map); second moment: log–log slope of
  ‖exact − first order‖ over the grid with lower 99 % confidence bound > ${order}
Sample row:
  | q-gen5, H = 5, sgd:lr=0.5,momentum=0.5, second moment | order 2 (> 1.5 required) | 2.010 [2.001, 2.019] | ✅ |
Notes: A slope of 1 would mean the factor η_g/(1 − β) is wrong (the remainder would then be
  first order). The measured slopes are in the note.
)";

const std::vector<std::string>& servers(bool quick) {
  static const std::vector<std::string> q = {"sgd:lr=1.5", "sgd:lr=0.5,momentum=0.5",
                                             "sgd:lr=0.5,momentum=0.5,nesterov=1"};
  static const std::vector<std::string> f = {"sgd:lr=1.5", "sgd:lr=0.5,momentum=0.5",
                                             "sgd:lr=0.5,momentum=0.5,nesterov=1",
                                             "sgd:lr=1,momentum=0.9"};
  return quick ? q : f;
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  PlotSpec figure{
      "Server step and momentum: remainder of the first-order covariance (q-gen5, H = 5)",
      "step size γ",
      "‖exact − first order‖ (second moment)",
      true,
      true,
      false,
      {}};
  const std::vector<int> hs = ctx.options.quick ? std::vector<int>{5} : std::vector<int>{1, 5};
  std::string slopes;
  for (const auto& np : default_quadratic_problems()) {
    const auto& q = as_quadratic(np);
    const auto k = theory::expansion_coefficients(q);
    const Vector& x_star = k.constants.x_star;
    for (int h : hs) {
      for (const std::string& server : servers(ctx.options.quick)) {
        std::vector<double> gamma, remainder;
        double mean_gap = 0, tolerance = 0;
        for (double g : quadratic::step_grid(q.smoothness(), ctx.options.quick)) {
          const theory::RunSetting s = fedopt_setting(g, h, server);
          const theory::ExactMoments ex = theory::exact_moments(q, kFedopt, s);
          const theory::ExactMoments fedavg = theory::fedavg_exact(q, {g, h});
          const double kappa = condition_number(theory::fedopt_round_map(q, s).d);
          mean_gap = std::max(mean_gap, (ex.mean - fedavg.mean).norm());
          tolerance = std::max(tolerance, mean_round_off(kappa, x_star));
          gamma.push_back(g);
          remainder.push_back(
              second_moment_remainder(ex, kit::first_order(ctx, k, kFedopt, s), x_star));
        }
        const std::string base = fmt::format("{}, H = {}, {}", np.name, h, server);
        out.rows.push_back(fedavg_mean_row(base, mean_gap, tolerance));
        Row order = remainder_order_row(base + ", second moment", gamma, remainder);
        slopes += fmt::format("{}{} {:.3f}", slopes.empty() ? "" : "; ", base,
                              order.data["slope"].get<double>());
        out.rows.push_back(std::move(order));
        if (ctx.figures && h == 5 && &np == &default_quadratic_problems().back()) {
          figure.series.push_back({server, gamma, remainder, "linespoints"});
        }
      }
    }
  }
  out.note = "Second-moment remainder slopes (exact − first order with η_g/(1 − β)): " + slopes +
             ". Slope ≈ 2 confirms (O2)'s factor η_g/(1 − β) at first order; the exact mean "
             "equals FedAvg's to round-off for every server setting.";
  kit::add_figure(ctx, figure, "server-step-momentum.svg",
                  "‖exact − first order‖ of the second moment against γ, q-gen5, H = 5 "
                  "(log–log): slope 2 for each server step and momentum.",
                  out);
  return out;
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::optimisers, 1},
                    .card = kCard,
                    .values = {{"ulps", quadratic::kRoundOffUlps}, {"order", kRequiredOrder}},
                    .alpha = 0,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
