// Claim games.fedgda-bias catches a planted error in the formula it checks: (M2) without its ½
// (the R − 1 pairs of local steps counted twice) leaves a first-order remainder, so every
// remainder-order row fails; the claim passes with the real formula.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "theory/algorithms/fedgda.hpp"
#include "verify/claims/games/fedgda_bias.hpp"

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

}  // namespace
}  // namespace fedverify::claims
