// Claim personalised.optimum-limits.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "theory/closed_forms/personalised.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/personalised/common.hpp"
#include "verify/claims/personalised/personalised.hpp"
#include "verify/claims/problems/personalised_problems.hpp"

namespace fedverify::claims::personalised {
namespace {

constexpr const char* kId = "personalised.optimum-limits";

constexpr const char* kCard = R"(
Summary: The personalised optimum x(λ) moves from the local models (λ → 0) to x* (λ → ∞).
Statement: The personalised optimum x(λ) interpolates between the local models (λ → 0) and the
  global model x* replicated on every client (λ → ∞), reaching both limits linearly.
Formula: x_i(λ) = x̄(λ) − (1/λ) ∇f_i(x_i(λ)), Σ_i ∇f_i(x_i(λ)) = 0;  ‖x(λ) − x_loc‖ = O(λ),  ‖x(λ)
  − x*‖ = O(1/λ)
THEORY: (P1)
Setting: the quadratic and the logistic regression of personalised/common.hpp with the seeds
  kLimitsQuadSeed and kLimitsLogSeed (built by verify/claims/problems/personalised_problems.hpp).
Decision: deterministic: the log–log slope of the distance between λ and the λ ten times closer to
  the limit (${small} and ${smaller}; ${large} and ${larger}) is 1 within ${slope_tolerance} (the
  next-order term is ≤ 1e-3 relative there), and the local optima have ‖∇f_i‖ ≤
  ${gradient_tolerance}
Sample row:
  | logistic n = 3, m = 20, d = 2 (seed 14), λ → ∞ | ‖x(λ) − x*‖ = O(1/λ): log–log slope 1 ±
  0.05 | distance 1.970e-05 at λ = 10000, 1.974e-06 at λ = 100000: slope 0.9992 | ✅ holds |
)";

// The problems of the limits claim (as in docs/THEORY-L2GD-notes.md).
constexpr std::uint64_t kLimitsQuadSeed = 13, kLimitsLogSeed = 14;
// Distances are measured at λ and λ/10 near 0 (resp. 10λ near ∞). The next-order term of ‖x(λ) −
// x_loc‖ is relatively O(λ/μ) (resp. O(L/λ) for ‖x(λ) − x*‖): ≤ 1e-3 here (μ = 0.1, L = 1), so the
// log–log slope is 1 within kSlopeTolerance with a wide margin.
constexpr double kSmallLambda = 1e-4, kLargeLambda = 1e4;
constexpr double kSlopeTolerance = 0.05;
// Newton stops at ‖∇f_i‖ ≤ 1e-13·scale (theory/optimum); a local optimum with a larger gradient is
// not one.
constexpr double kLocalGradientTolerance = 1e-11;
// Baseline: the slopes are deterministic; distances ≥ 1e-6 carry round-off ≤ 1e-13, which moves a
// slope by ≤ 1e-7.
constexpr double kSlopeBaselineTolerance = 1e-6;

}  // namespace

ClaimResult optimum_limits(const Context& ctx, const GlobalLimit& global_limit) {
  ClaimResult out;
  const auto q = make_quadratic(kQuadClients, kQuadDim, kQuadMu, kQuadL, kLimitsQuadSeed);
  const auto lg = make_logistic(kLogClients, kLogSamples, kLogDim, kLogL2, kLimitsLogSeed);
  struct Case {
    const theory::Problem* problem;
    std::string name;
    std::uint64_t seed;
  };
  const std::vector<Case> cases{
      {&q,
       fmt::format("quadratic n = {}, d = {} (seed {})", kQuadClients, kQuadDim, kLimitsQuadSeed),
       kLimitsQuadSeed},
      {&lg,
       fmt::format("logistic n = {}, m = {}, d = {} (seed {})", kLogClients, kLogSamples, kLogDim,
                   kLimitsLogSeed),
       kLimitsLogSeed}};
  PlotSpec plot{"Personalised optimum x(λ) between the local and the global models",
                "λ",
                "distance",
                true,
                true,
                false,
                {}};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const theory::Problem& p = *cases[c].problem;
    const Matrix local = theory::local_optima(p);
    const Matrix global = global_limit(p);
    double local_gradient = 0;
    for (int i = 0; i < p.num_clients(); ++i) {
      local_gradient = std::max(local_gradient, p.gradient(i, local.col(i)).norm());
    }
    const auto distance = [&](double lambda, const Matrix& to) {
      return (theory::personalised_optimum(p, lambda) - to).norm();  // THEORY (P1)
    };
    struct Limit {
      const char* name;
      const Matrix& target;
      double at, further;  // λ and the λ ten times closer to the limit
      const char* order;
    };
    for (const Limit& lim :
         {Limit{"λ → 0", local, kSmallLambda, kSmallLambda / 10, "‖x(λ) − x_loc‖ = O(λ)"},
          Limit{"λ → ∞", global, kLargeLambda, kLargeLambda * 10, "‖x(λ) − x*‖ = O(1/λ)"}}) {
      const double d_at = distance(lim.at, lim.target),
                   d_further = distance(lim.further, lim.target);
      const double slope = std::log10(d_at / d_further);
      const bool is_local = &lim.target == &local;
      Row row;
      row.setting = fmt::format("{}, {}", cases[c].name, lim.name);
      row.predicted = fmt::format(
          "{}: log–log slope 1 ± {}{}", lim.order, kSlopeTolerance,
          is_local ? fmt::format("; ‖∇f_i(x_loc,i)‖ ≤ {:g}", kLocalGradientTolerance) : "");
      row.measured =
          fmt::format("distance {:.3e} at λ = {:g}, {:.3e} at λ = {:g}: slope {:.4f}{}", d_at,
                      lim.at, d_further, lim.further, slope,
                      is_local ? fmt::format("; max ‖∇f_i‖ {:.1e}", local_gradient) : "");
      row.passed = std::abs(slope - 1) <= kSlopeTolerance &&
                   (!is_local || local_gradient <= kLocalGradientTolerance);
      row.data = {{"problem", theory::to_string(p.kind())}, {"problem_seed", cases[c].seed},
                  {"limit", is_local ? "local" : "global"}, {"lambdas", {lim.at, lim.further}},
                  {"distances", {d_at, d_further}},         {"slope", slope},
                  {"local_gradient", local_gradient},       {"value", slope},
                  {"tolerance", kSlopeBaselineTolerance}};
      kit::gate(row, "slope", slope, kSlopeBaselineTolerance);
      out.rows.push_back(std::move(row));
    }
    if (ctx.figures) {
      std::vector<double> lambdas, to_local, to_global;
      for (int e = -20; e <= 20; ++e) {
        const double lambda = std::pow(10.0, e / 4.0);
        const Matrix x = theory::personalised_optimum(p, lambda);
        lambdas.push_back(lambda);
        to_local.push_back((x - local).norm());
        to_global.push_back((x - global).norm());
      }
      const std::string colour = fmt::format(" lc rgb '{}'", figure_colour(c));
      const std::string kind = theory::to_string(p.kind());
      plot.series.push_back(
          {kind + ": ‖x(λ) − x_{loc}‖", lambdas, to_local, "linespoints pt 7 ps 0.6" + colour});
      plot.series.push_back({kind + ": ‖x(λ) − x*‖", lambdas, to_global,
                             "linespoints pt 6 ps 0.6 dashtype 2" + colour});
    }
  }
  kit::add_figure(ctx, plot, "l2gd-optimum-limits.svg",
                  "Distance of the personalised optimum x(λ) (THEORY (P1)) to the local optima "
                  "(solid) and to the replicated global optimum x* (dashed): slope 1 at λ → 0 and "
                  "slope −1 at λ → ∞ on the log–log scale.",
                  out);
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return optimum_limits(ctx, theory::global_optimum_replicated);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::personalised, 3},
                                        .card = kCard,
                                        .values = {{"small", kSmallLambda},
                                                   {"smaller", kSmallLambda / 10},
                                                   {"large", kLargeLambda},
                                                   {"larger", kLargeLambda * 10},
                                                   {"slope_tolerance", kSlopeTolerance},
                                                   {"gradient_tolerance", kLocalGradientTolerance}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::personalised
