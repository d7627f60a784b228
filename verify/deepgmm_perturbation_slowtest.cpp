// The planted perturbation of claim games.deepgmm-table (docs/PERTURBATIONS.md): f trained with
// the wrong sign of the quadratic penalty of (3.14) (λ = −¼: U becomes convex in f's output, so
// the ascent on τ has no maximum to reach). On a reduced study (Absolute and Linear, 2 runs,
// 4000 samples per split, a fifth of the rounds) every row of the claim must fail, while the
// correct game on the same reduced study trains without diverging (so the failure is the
// plant's, not the reduction's).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "verify/claims/games/deepgmm_study.hpp"

namespace fedverify::claims::games::deepgmm {
namespace {

StudyOptions reduced() {
  StudyOptions o;
  o.functions = {theory::IvFunction::absolute, theory::IvFunction::linear};
  o.runs = 2;
  o.samples = 4000;
  o.round_scale = 0.2;
  o.seed = 7;
  return o;
}

TEST(DeepGmmPerturbation, WrongSignOfThePenaltyFailsEveryCell) {
  const StudyResult correct = run_study(reduced());
  for (const Cell& c : correct.cells) EXPECT_EQ(c.diverged, 0) << to_string(c.function);

  StudyOptions o = reduced();
  o.penalty = -0.25;
  const StudyResult planted = run_study(o);
  Context ctx;
  const ClaimResult r = table_claim(ctx, planted);
  ASSERT_EQ(r.rows.size(), 2 * kTrainers);
  for (const Row& row : r.rows) {
    fmt::print("planted: {} | {}\n", row.setting, row.measured);
    EXPECT_FALSE(row.passed) << row.setting << ": " << row.measured;
  }
}

}  // namespace
}  // namespace fedverify::claims::games::deepgmm
