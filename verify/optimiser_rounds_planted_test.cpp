// The FedExP and adaptive-server claims catch the planted rounds of
// verify/planted/optimiser_rounds.hpp: each claim passes with the registered fedopt round and
// fails with its planted round injected (claims::Context::round_for).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "verify/claims/claim.hpp"
#include "verify/planted/optimiser_rounds.hpp"

namespace fedverify::claims {
namespace {

using RoundFactory = std::shared_ptr<const estimators::RoundSampler> (*)();

void expect_caught(const std::string& id, const std::string& name, RoundFactory planted_round) {
  const Claim& claim = claim_by_id(id);
  Context real;
  real.options.quick = true;
  EXPECT_TRUE(run_claim(claim, real).passed()) << id << " fails without a planted round";
  Context planted = real;
  const auto round = planted_round();
  planted.round_for = [round](theory::Algorithm a) {
    return a.name() == "fedopt" ? round : nullptr;
  };
  const ClaimResult r = run_claim(claim, planted);
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("{} planted in {}: {} of {} rows fail\n", name, id, failed, r.rows.size());
  EXPECT_FALSE(r.passed()) << name << " is not caught by " << id;
}

TEST(OptimiserRoundsPlanted, FedexpEpsTimesClientsFailsTheThreshold) {
  expect_caught("optimisers.fedexp", "fedexp_eps_times_clients",
                verify::planted::fedexp_eps_times_clients);
}

TEST(OptimiserRoundsPlanted, FedexpWithoutExtrapolationFailsTheSpeedUp) {
  expect_caught("optimisers.fedexp", "fedexp_without_extrapolation",
                verify::planted::fedexp_without_extrapolation);
}

TEST(OptimiserRoundsPlanted, BiasRemovingServerFailsAdaptiveServer) {
  expect_caught("optimisers.adaptive-server", "fedopt_replaced_by_scaffold",
                verify::planted::fedopt_replaced_by_scaffold);
}

}  // namespace
}  // namespace fedverify::claims
