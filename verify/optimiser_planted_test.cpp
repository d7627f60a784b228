// The optimiser claims (verify/claims/optimisers/) and the server-stability map catch the planted
// errors of verify/planted/optimiser_errors.hpp: each claim passes with the real formulas and fails
// with its planted error injected as the predictor, the compared-with limit or the round. The
// exact claims take milliseconds; the simulated rows (client sampling, the logistic server step)
// about a second per run on the quick grid, ≈ 10 s for the whole test. The runs that take their
// compared-with formula as a parameter are in optimisers/optimisers.hpp and maps/maps.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "theory/algorithms/fedopt.hpp"
#include "theory/algorithms/scaffold_sampled.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/maps/maps.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
#include "verify/planted/optimiser_errors.hpp"
#include "verify/planted/optimiser_rounds.hpp"

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
                                const theory::RunSetting& s) {
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

// The simulated rows of optimisers.client-sampling catch a round that ignores --participating
// (statistical rows: run through run_claim, with its confirmation rerun).
TEST(OptimiserPlanted, ClientSamplingSimulationCatchesIgnoredParticipation) {
  Context ctx;
  ctx.options.quick = true;
  const auto round = verify::planted::fedopt_ignoring_participation();
  ctx.round_for = [round](theory::Algorithm a) {
    return a == theory::Algorithm{"fedopt"} ? round : nullptr;
  };
  const ClaimResult r = run_claim(claim_by_id("optimisers.client-sampling"), ctx);
  int failed = 0;
  for (const auto& row : r.rows) {
    failed += row.passed ? 0 : 1;
    if (row.setting.find("simulated") != std::string::npos) {
      EXPECT_FALSE(row.passed) << row.setting << " | " << row.measured;
    }
  }
  fmt::print("fedopt_ignoring_participation: {} of {} rows fail\n", failed, r.rows.size());
}

TEST(OptimiserPlanted, BiasRatioLimitWithAPowerSlipFails) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(optimisers::run_fedprox_bias(ctx, theory::fedprox_bias_ratio_limit).passed());
  const ClaimResult r =
      optimisers::run_fedprox_bias(ctx, verify::planted::fedprox_bias_ratio_limit_power_slip);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("fedprox_bias_ratio_limit_power_slip: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_FALSE(r.passed());
}

// THEORY (S8a) with the stale-noise factor 2 − S/N dropped: Scaffold's sampled covariance as the
// fresh noise alone, (γ/S)𝒜C̄ — its remainder is first order, so every second-moment row fails.
TEST(OptimiserPlanted, ScaffoldSamplingWithoutStaleNoiseFails) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(
      optimisers::run_scaffold_sampling(ctx, theory::scaffold_sampled_first_order).passed());
  const auto fresh_noise_only = [](const theory::ExpansionCoefficients& k,
                                   const theory::RunSetting& s) {
    theory::FirstOrderMoments m = theory::scaffold_sampled_first_order(k, s);
    m.cov = (s.gamma / s.participating) * k.a_noise;
    return m;
  };
  const ClaimResult r = optimisers::run_scaffold_sampling(ctx, fresh_noise_only);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("scaffold sampling without the stale noise: {} of {} rows fail\n", failed,
             r.rows.size());
  EXPECT_EQ(failed, 4);  // the four second-moment rows (2 problems × 2 S on the quick grid)
}

TEST(OptimiserPlanted, StabilityMapWithoutMomentumFails) {
  Context ctx;
  ctx.options.quick = true;
  EXPECT_TRUE(maps::server_stability_map(ctx, theory::fedopt_server_step_limit).passed());
  const ClaimResult r =
      maps::server_stability_map(ctx, verify::planted::server_step_limit_without_momentum);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("map, server_step_limit_without_momentum: {} of {} rows fail\n", failed,
             r.rows.size());
  EXPECT_FALSE(r.passed());
}

}  // namespace
}  // namespace fedverify::claims
