// Claim games.linear-iv catches a planted error in the formula it checks: the GMM estimator with
// the weighting matrix W instead of W⁻¹ (a transposed reading of (M5)) is still a consistent
// estimator, but it is not the equilibrium of the game U = τᵀ(b − Gθ) − ¼τᵀWτ, so the exact row
// "R = 1: θ_F = θ_GMM" fails by far more than round-off; the claim passes with the real formula.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/closed_forms/linear_iv_gmm.hpp"
#include "verify/claims/games/linear_iv.hpp"

namespace fedverify::claims {
namespace {

TEST(LinearIvPlanted, WeightingByWInsteadOfItsInverseFailsTheClaim) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(games::run_linear_iv(ctx, theory::gmm_estimator).passed());
  const ClaimResult r =
      games::run_linear_iv(ctx, [](const Matrix& g, const Matrix& w, const Vector& b) {
        return theory::gmm_estimator(g, w.inverse(), b);  // planted: weighting W, not W⁻¹
      });
  ASSERT_FALSE(r.rows.empty());
  EXPECT_FALSE(r.rows.front().passed) << r.rows.front().measured;
  fmt::print("W instead of W⁻¹: R = 1 row: {}\n", r.rows.front().measured);
}

}  // namespace
}  // namespace fedverify::claims
