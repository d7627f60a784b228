// Claim games.nonconvex-pl (THEORY M8): on a game non-convex in θ and PL in τ, FedGDA's stable
// limit points are the strict local minimax points (above a timescale threshold), offset from
// them by (M2); its averaged squared gradient of Φ decays as 1/T down to an O(α²) floor.
#include "verify/claims/games/nonconvex_pl.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "verify/claims/games/nonconvex_pl_rows.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/common.hpp"

namespace fedverify::claims::games {
namespace {

constexpr const char* kId = "games.nonconvex-pl";

constexpr const char* kCard = R"(
Summary: Non-convex–PL game: FedGDA's stable limit points are the strict local minimax points
  (above a step-ratio threshold), offset by (M2).
Statement: On a federated game non-convex in θ and PL in τ (each client a least-squares in τ,
  not strongly concave), the stationary points that attract FedGDA for small steps are exactly
  the strict local minimax points (second-order conditions of [Thesis] §3.3 after Jin et al.):
  at a local Nash point for every step ratio α₂/α₁, at a local minimax point that is not a Nash
  point only above a threshold ρ*, never at the other stationary points; with R > 1 local steps
  the limit point is offset by (M2), so it meets the second-order conditions but not the
  first-order one; ‖∇Φ‖² averaged over T rounds decays as 1/T (Sharma et al.'s non-convex–PL
  rate with constant steps) to a floor of order α²(R − 1)².
Formula: strict local minimax: ∇²_ττ f̄ ≺ 0, S = ∇²_θθ f̄ − ∇²_θτ f̄ (∇²_ττ f̄)⁻¹ ∇²_τθ f̄ ≻ 0;
  stable at ratio ρ iff every eigenvalue of diag(I, ρI)J̄(z*) has Re > 0 (ρ > ρ*);
  z_F − z* = ((R − 1)/(2N)) J̄⁻¹ Σ_i J_i D F_i(z*) + O(α²R²)
THEORY: (M0), (M2), (M8)
Setting: the game nc-pl (theory/problems/pl_game.cpp: p = q = 2, N = 4, one residual row per
  client, κ = 1, Ā = −I, coupling K = diag(2, ½), heterogeneity h = ${heterogeneity}); its
  stationary points by Newton from a ${grid}² grid on [−3, 3]²; FedGDA α₁ = ${alpha}, R = 5, step
  ratios 1 and 4; ${starts} random starts (θ, τ uniform in [−2, 2]⁴) run ${rounds} rounds;
  (M2) and floor rows: α₁ = 0.00125 … 0.02 (factor 2); rate: T = 250 … 2000.
Decision: classification rows: ρ* finite exactly at the strict local minimax points, and the
  spectral radius of the round's Jacobian at the limit point < 1 exactly where predicted; starts:
  every start within 1e-6 of a predicted-stable limit point after T rounds; (M2) remainder and
  floor: log–log slope with lower 99 % bound > ${order}; rate: slope of the averaged excess
  within ${rate_tolerance} of −1; R = 1: z_F = z* to round-off
Sample row:
  | θ = (0.81, −0.94): minimax, not Nash | ρ* = 2.41: unstable at 1, stable at 4 | ρ(DΨ) = 1.0181, 0.9804 | ✅ |
Notes: deterministic (no gradient noise): every number is a computation, not an estimate; the
  random starts are drawn from the run seed.
Margin: none (exact): the classification rows compare signs of spectral radius − 1 (≥ 3e-3
  from 0 here, round-off 1e-15); the slopes are deterministic fits
)";

}  // namespace

ClaimResult run_nonconvex_pl(const Context& ctx, const NonconvexPlFormulas& formulas) {
  const theory::PlGame game = theory::nonconvex_pl_game(kHeterogeneity);
  const std::vector<theory::MinimaxPoint> found =
      theory::stationary_points(game, kBoxHalfWidth, kGrid);
  std::vector<ClassifiedPoint> points;
  points.reserve(found.size());
  for (const auto& pt : found) points.push_back(classify(game, pt.z, formulas));
  ClaimResult out;
  out.rows.push_back(count_row(game, points));
  for (const auto& pt : points) out.rows.push_back(stability_row(game, pt));
  for (double ratio : kRatios) {
    out.rows.push_back(
        random_start_row(game, points, ratio, kit::row_seed(ctx, kId, "random starts")));
  }
  int minimax = 0;
  for (const auto& pt : points) {
    if (!pt.test.strict_local_minimax()) continue;
    out.rows.push_back(offset_row(game, pt, formulas, ++minimax));
  }
  out.rows.push_back(exact_at_one_step_row(game, points));
  out.rows.push_back(limit_point_conditions_row(game, points, formulas));
  for (Row& row : rate_rows(game, points)) out.rows.push_back(std::move(row));
  add_trajectory_figure(ctx, game, points, out);
  int nash = 0;
  for (const auto& pt : points) nash += pt.test.local_nash() ? 1 : 0;
  out.note = fmt::format(
      "{} stationary points: {} strict local minimax ({} of them local Nash points), {} not. "
      "FedGDA's stable limit points are the strict local minimax points once α₂/α₁ > ρ*; the "
      "thesis's \"FedGDA's solution satisfies the local-minimax conditions\" holds for the "
      "second-order conditions and, for R > 1, fails for the first-order one by O(α(R − 1)).",
      points.size(), minimax, nash, static_cast<int>(points.size()) - minimax);
  return out;
}

namespace {

const bool registered = register_claim(
    {.id = kId,
     .order = {Section::games, 5},
     .card = kCard,
     .values = {{"heterogeneity", kHeterogeneity},
                {"grid", kGrid},
                {"alpha", kAlpha},
                {"starts", kStarts},
                {"rounds", kStartRounds},
                {"order", optimisers::kRequiredOrder},
                {"rate_tolerance", kRateTolerance}},
     .run = [](const Context& ctx) { return run_nonconvex_pl(ctx, NonconvexPlFormulas{}); }});

}  // namespace
}  // namespace fedverify::claims::games
