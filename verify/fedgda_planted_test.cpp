// Claim games.fedgda-bias catches a planted error in the formula it checks: (M2) without its ½
// (the R − 1 pairs of local steps counted twice) leaves a first-order remainder, so every
// remainder-order row fails; the claim passes with the real formula.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/algorithms/fedgda.hpp"
#include "verify/claims/games/fedgda_bias.hpp"
#include "verify/claims/games/nonconvex_pl.hpp"
#include "verify/claims/maps/maps.hpp"

namespace fedverify::claims {
namespace {

TEST(FedgdaPlanted, M2WithoutItsHalfFailsTheClaim) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(games::run_fedgda_bias(ctx, theory::fedgda_first_order).passed());
  const ClaimResult r =
      games::run_fedgda_bias(ctx, [](const theory::QuadraticGame& g, const theory::GdaSetting& s) {
        theory::GdaFirstOrder f = theory::fedgda_first_order(g, s);
        f.bias *= 2.0;
        return f;
      });
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("M2 without 1/2: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_GE(failed, 4);  // the four remainder-order rows
}

// Claim maps.fedgda-stability catches (M7) without its factor 2 (the condition |1 − αμ| < 1 read
// as α Re μ < |μ|²/… i.e. α < Re μ/|μ|²): every R = 1 row of the monotone game then puts the grid
// points between the two limits on the wrong side and bisects a boundary twice the planted one.
TEST(FedgdaPlanted, StepLimitWithoutItsFactorTwoFailsTheStabilityMap) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(maps::fedgda_stability_map(ctx, theory::fedgda_step_limit).passed());
  const ClaimResult r =
      maps::fedgda_stability_map(ctx, [](const theory::QuadraticGame& g, double ratio) {
        return 0.5 * theory::fedgda_step_limit(g, ratio);
      });
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("M7 without its factor 2: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_EQ(failed, 5);  // the five step ratios at R = 1 on the monotone game
}

// Claim games.nonconvex-pl catches local minimax read as local Nash (the second-order test on
// ∇²_θθ f̄ instead of the Schur complement, i.e. ignoring that τ responds to θ): the two minimax
// points that are not Nash points are then predicted unstable, but FedGDA with α₂/α₁ = 4 > ρ*
// converges to them, so their two classification rows and the random-start row at ratio 4 fail.
TEST(FedgdaPlanted, MinimaxReadAsNashFailsTheNonconvexPlClaim) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(games::run_nonconvex_pl(ctx, games::NonconvexPlFormulas{}).passed());
  games::NonconvexPlFormulas planted;
  planted.second_order = [](const theory::PlGame& g, const Vector& z) {
    theory::MinimaxPoint t = theory::second_order_test(g, z);
    t.schur_min = t.theta_curvature;
    return t;
  };
  const ClaimResult r = games::run_nonconvex_pl(ctx, planted);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("minimax read as Nash: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_FALSE(r.passed());
  EXPECT_GE(failed, 3);  // the two non-Nash points' rows and the ratio-4 random starts
}

// … and (M2) without its ½ on the non-convex–PL game: the remainder of every minimax point is first
// order, so the four remainder rows fail.
TEST(FedgdaPlanted, M2WithoutItsHalfFailsTheNonconvexPlClaim) {
  Context ctx;
  ctx.options.quick = true;
  games::NonconvexPlFormulas planted;
  planted.first_order = [](const theory::PlGame& g, const theory::GdaSetting& s, const Vector& z) {
    return Vector(2.0 * theory::fedgda_smooth_offset_first_order(g, s, z));
  };
  const ClaimResult r = games::run_nonconvex_pl(ctx, planted);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("M2 without 1/2 (non-convex-PL): {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_GE(failed, 4);
}

}  // namespace
}  // namespace fedverify::claims
