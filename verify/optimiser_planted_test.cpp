// The optimiser claims (verify/claims/optimisers/) catch the planted errors of
// verify/planted/optimiser_errors.hpp: each claim passes with the real first-order formulas and
// fails with its planted error injected as the predictor. The claims are exact (no Monte Carlo)
// and take well under a second on the quick grid, so this is a fast test. The stability claim's
// run takes the limit it checks as a parameter (optimisers/stability.hpp), planted there.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "theory/algorithms/fedopt.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/optimisers/stability.hpp"
#include "verify/planted/optimiser_errors.hpp"

namespace fedverify::claims {
namespace {

TEST(OptimiserPlanted, EachErrorFailsItsClaim) {
  for (const verify::planted::OptimiserErrorCase& c : verify::planted::optimiser_errors()) {
    const std::string id = c.claim;
    const std::string name = c.name;
    const verify::planted::OptimiserError error = c.error;
    const Claim& claim = claim_by_id(id);
    Context real;
    real.options.quick = true;
    EXPECT_TRUE(run_claim(claim, real).passed()) << id << " fails without a planted error";
    Context planted = real;
    planted.predictor = [error](const theory::ExpansionCoefficients& k, theory::Algorithm a,
                                const theory::StepSetting& s) {
      return verify::planted::first_order_with(error, k, a, s);
    };
    const ClaimResult r = run_claim(claim, planted);
    int failed = 0;
    for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
    fmt::print("{} planted in {}: {} of {} rows fail\n", name, id, failed, r.rows.size());
    EXPECT_FALSE(r.passed()) << name << " is not caught by " << id;
  }
}

TEST(OptimiserPlanted, StabilityLimitWithoutMomentumFails) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(optimisers::run_server_stability(ctx, theory::fedopt_server_step_limit).passed());
  const ClaimResult r =
      optimisers::run_server_stability(ctx, verify::planted::server_step_limit_without_momentum);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("server_step_limit_without_momentum: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_FALSE(r.passed());
}

}  // namespace
}  // namespace fedverify::claims
