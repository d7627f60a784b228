// Claim dynamics.finite-time-bounds.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/third_derivative_bound.hpp"
#include "verify/claims/dynamics/dynamics.hpp"
#include "verify/claims/dynamics/finite_time_cases.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

using theory::Algorithm;

using finite_time::Case;
using finite_time::Evaluated;
constexpr const char* kId = finite_time::kFiniteTimeBoundsId;

constexpr const char* kCard = R"(
Summary: Scaffold's and FedAvg's finite-time bounds, with the constant fitted on training problems, hold on held-out ones.
Statement: Seed 000's finite-time bounds hold with one absolute constant C: the smallest C that
  makes E‖x_t − x*‖² ≤ C·bound(t) at every round on a training set of problems and settings also
  bounds every held-out problem and setting (else the bound is refuted as a uniform statement, by
  the factor printed). The ratio E_t/bound(t) shows where each bound is tight and where vacuous.
Formula: Scaffold (S5): E‖x_T − x*‖² ≲ (1 − γμ/4)^{HT}{‖x₀ − x*‖² + 2γ²H²ζ² + σ*²/(Lμ)} +
  γσ*²/(Nμ) + γ^{3/2}Qσ*³/μ^{5/2} + γ³HQ²σ*⁴/μ³;  FedAvg (T3): ‖x_T − x*‖² ≲ (1 − γμ)^{HT}‖x₀ −
  x*‖² + χ, χ = ‖γ((H − 1)b_h + b_s)‖² + tr (γ/N)𝒜C̄ (the first-order stationary level, (F2),
  (F3)); μ, L the f_c's global bounds, Q a certified bound on ∇³f_c over ℝ^d
THEORY: (S5), (T3), (F2), (F3)
Setting: x₀ = x* + (2/√d)·1 (‖x₀ − x*‖ = 2). Training (exact curves (T1)): q-small (d = 2, N = 3)
  and hetero-4 (heterogeneous_speedup_problem(4): d = 2, N = 4) at γL ∈ {0.02, 0.1} × H ∈ {1, 4}.
  Held out: q-small at γL = 0.05, H = 8 (exact); q-generated (d = 5, N = 6; exact); ls-diabetes
  (least squares, d = 10, N = 10: FedAvg and Scaffold exact (T1) on linear-sa);
  lr-breast-cancer (logistic, d = 31, N = 10, Q certified: ${chains} simulated chains), each at
  γL = 0.05, H = 2. Horizon T = ⌈8/(Hγλ_min(𝐇))⌉ rounds (the slowest mode of the mean decayed by
  e^{−8}); beyond T the bound is above its floor, so the tail is one more point: E_T (exact), or
  the chains' time average over the last quarter (simulated), against C·floor.
Decision: per held-out row, "E_t ≤ C·bound(t) at every compared round (1, 2, … every power of
  2^{1/4} up to T) and at the tail". Exact curves: deterministic, refuted when a ratio exceeds C by
  more than 1e-9 relative. Simulated curves: refuted when a point's one-sided z test (decide.hpp
  (j)) rejects at α/m (Bonferroni over the m points; α = 0.01 family-wise, split over the
  simulated rows); confirmed when every point's upper limit is below C·bound (decide.hpp (l), at
  α). The training rows pass when every training curve converges (finite C).
Sample row:
  | Scaffold on lr-breast-cancer, γL = 0.05, H = 2 (held out; simulated) | E_t ≤ C·bound(t), C =
  0.8911 (fitted) | largest ratio 0.2495 at t = 0; tail E_∞/floor 6.513e-05; smallest 5.57e-05 | ✅
  holds |
Notes: The bounds are theory/closed_forms/bounds.hpp, Q theory/problems/third_derivative_bound.hpp,
  the curves' comparison verify/claims/dynamics/bound_ratio.hpp. (S5) and (T3) hide their
  constants ("≲"), so the check is the uniform one the issue asks: a constant fitted on some
  problems must serve the others.
Margin: one-sided: a bound is confirmed with margin 0 (every upper confidence limit below C·bound).
)";

}  // namespace

theory::FiniteTimeBound seed_finite_time_bound(Algorithm algorithm, const BoundInputs& in) {
  const auto& k = in.constants;
  if (algorithm == Algorithm::scaffold) {
    return theory::scaffold_finite_time_bound(in.step, k.mu, k.l, k.zeta2, k.sigma_star2,
                                              in.clients, in.initial_distance2, in.q);
  }
  if (algorithm == Algorithm::fedavg) {
    return theory::fedavg_finite_time_bound(in.step, k.mu, in.first_order_floor,
                                            in.initial_distance2);
  }
  throw std::logic_error("seed_finite_time_bound: Scaffold and FedAvg only");
}

ClaimResult finite_time_bounds(const Context& ctx, const FiniteTimeBoundFormula& bound) {
  ClaimResult out;
  static const theory::QuadraticProblem hetero4 = heterogeneous_speedup_problem(4);
  const auto& quadratics = default_quadratic_problems();
  std::vector<Case> training;
  for (const auto& [name, p] : std::vector<std::pair<std::string, const theory::Problem*>>{
           {"q-small", quadratics[0].problem.get()}, {"hetero-4", &hetero4}}) {
    for (double gamma_l : {0.02, 0.1}) {
      for (int h : {1, 4}) training.push_back({name, p, gamma_l, h});
    }
  }
  const std::vector<Case> held_out = {
      {"q-small", quadratics[0].problem.get(), 0.05, 8},
      {quadratics[1].name, quadratics[1].problem.get(), 0.05, 2},
      {"ls-diabetes", default_linear_sa_problems().diabetes.problem.get(), 0.05, 2},
      {"lr-breast-cancer", research_logistic_problems().breast_cancer.problem.get(), 0.05, 2}};
  const std::vector<Algorithm> algos = {Algorithm::scaffold, Algorithm::fedavg};
  std::vector<Evaluated> fitted, tested;
  for (const Case& c : training) {
    for (Algorithm a : algos) fitted.push_back(finite_time::evaluate(ctx, c, a, bound));
  }
  for (const Case& c : held_out) {
    for (Algorithm a : algos) tested.push_back(finite_time::evaluate(ctx, c, a, bound));
  }
  int simulated = 0;
  for (const auto& e : tested) simulated += e.curve.exact ? 0 : 1;
  const double alpha = kFamilyAlpha / std::max(1, simulated);
  std::vector<std::string> breaks;
  std::vector<double> fits;
  for (Algorithm a : algos) {
    const double c = finite_time::fit_row(fitted, a, out);
    fits.push_back(c);
    nlohmann::json scan = nlohmann::json::array();
    breaks.push_back(finite_time::breaks_scan(ctx, hetero4, a, c, bound, scan));
    out.rows.back().data["scan_beyond_training"] = scan;
    PlotSpec plot{fmt::format("{}: E_t / bound(t) (seed 000's bound without its constant)",
                              theory::to_string(a)),
                  "round t (0 drawn at 0.5)",
                  "E‖x_t − x*‖² / bound(t)",
                  true,
                  true,
                  false,
                  {}};
    for (const auto& e : tested) {
      if (e.a != a) continue;
      finite_time::held_out_row(e, c, alpha, out);
      std::vector<double> x = e.ratio.plot_rounds;
      x.front() = 0.5;
      plot.series.push_back({e.c.label(), x, e.ratio.plot_ratio, "lines"});
    }
    for (const auto& e : fitted) {
      if (e.a != a || e.c.h != 4) continue;
      std::vector<double> x = e.ratio.plot_rounds;
      x.front() = 0.5;
      plot.series.push_back({e.c.label() + " (training)", x, e.ratio.plot_ratio, "lines"});
    }
    const double t_max = plot.series.empty() ? 1.0 : plot.series.front().x.back();
    plot.series.push_back({"fitted C", {0.5, t_max}, {c, c}, "lines"});
    kit::add_figure(ctx, plot, fmt::format("finite-time-bound-{}.svg", theory::to_string(a)),
                    fmt::format("{}: the measured E‖x_t − x*‖² over seed 000's bound (without its "
                                "constant), on the held-out and training cases; the fitted C is "
                                "the horizontal line. Near C the bound is tight; far below it is "
                                "vacuous by that factor.",
                                theory::to_string(a)),
                    out);
  }
  // The curves themselves on the research-sized problem, against C·bound(t).
  PlotSpec curves{
      "lr-breast-cancer (d = 31, N = 10), γL = 0.05, H = 2: E‖x_t − x*‖² and C·bound(t)",
      "round t (0 drawn at 0.5)",
      "E‖x_t − x*‖²",
      true,
      true,
      false,
      {}};
  for (std::size_t i = 0; i < algos.size(); ++i) {
    for (const auto& e : tested) {
      if (e.a != algos[i] || e.c.problem_name != "lr-breast-cancer") continue;
      std::vector<double> x = e.ratio.plot_rounds, measured, bounded, err;
      for (double& t : x) {
        const int r = static_cast<int>(t);
        measured.push_back(e.curve.mse[r]);
        err.push_back(e.curve.exact ? 0.0 : 2 * e.curve.se[r]);
        bounded.push_back(fits[i] * e.bound.at(r));
      }
      x.front() = 0.5;
      const std::string name = theory::to_string(algos[i]);
      curves.series.push_back({name + " E_t (±2 s.e.)", x, measured, "lines", err});
      curves.series.push_back({name + " C·bound(t)", x, bounded, "lines"});
    }
  }
  if (!curves.series.empty()) {
    kit::add_figure(ctx, curves, "finite-time-bound-curves.svg",
                    "lr-breast-cancer: the simulated E‖x_t − x*‖² of Scaffold and FedAvg from "
                    "‖x₀ − x*‖ = 2 against seed 000's bounds with the fitted constants. FedAvg's "
                    "(T3) meets its floor; Scaffold's (S5) stays orders of magnitude above, its "
                    "floor carrying the Q terms γ^{3/2}Qσ*³/μ^{5/2} + γ³HQ²σ*⁴/μ³.",
                    out);
  }
  out.breaks_at = fmt::format("{}; {}", breaks[0], breaks[1]);
  return out;
}

namespace {

ClaimResult run(const Context& ctx) { return finite_time_bounds(ctx, seed_finite_time_bound); }

const bool registered = register_claim({.id = kId,
                                        .order = {Section::dynamics, 6},
                                        .card = kCard,
                                        .values = {{"chains", 512}},
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
