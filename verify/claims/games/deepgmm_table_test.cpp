// The verdicts of claim games.deepgmm-table (deepgmm_table.cpp) on constructed study results: a
// cell reads "reproduced" only when agreement with the printed value within the printed
// resolution is confirmed (TOST), "not refuted" when the test passes without that confirmation,
// and fails when the test rejects — so a noisy cell is never reported as agreement.
#include <gtest/gtest.h>

#include <string>

#include "verify/claims/claim.hpp"
#include "verify/claims/games/deepgmm_study.hpp"

namespace fedverify::claims::games::deepgmm {
namespace {

// Absolute, DeepGMM-GDA (trainer 0): printed 0.013 ± 0.01, so the allowance is 0.01 + 0.0005.
Cell absolute_gda(std::vector<double> mse) {
  return {theory::IvFunction::absolute, 0, std::move(mse), 0};
}

TEST(DeepGmmTable, ReproducedNotRefutedAndNotReproducedAreToldApart) {
  StudyResult study;
  // Tight around the printed mean: se ≈ 3e-4 ≪ allowance 0.0105, so the TOST confirms.
  study.cells.push_back(absolute_gda({0.012, 0.013, 0.014, 0.013, 0.013}));
  // Mean 0.03, sd 0.03, se 0.0134: |0.03 − 0.013| − 0.0105 = 0.0065 is 0.5 se (not rejected),
  // but the upper confidence bound 0.03 + t·0.0134 exceeds 0.013 + 0.0105 (not confirmed).
  study.cells.push_back(absolute_gda({0.0, 0.06, 0.0, 0.06, 0.03}));
  // Thirty times the printed mean with se ≈ 3e-3: rejected.
  study.cells.push_back(absolute_gda({0.40, 0.41, 0.39, 0.40, 0.40}));
  const ClaimResult r = table_claim(Context{}, study);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(verdict_class(r.rows[0]), VerdictClass::equivalent) << r.rows[0].measured;
  EXPECT_NE(r.rows[0].measured.find(": reproduced"), std::string::npos) << r.rows[0].measured;
  EXPECT_EQ(verdict_class(r.rows[1]), VerdictClass::not_rejected) << r.rows[1].measured;
  EXPECT_NE(r.rows[1].measured.find(": not refuted"), std::string::npos) << r.rows[1].measured;
  EXPECT_EQ(verdict_class(r.rows[2]), VerdictClass::fails) << r.rows[2].measured;
  EXPECT_NE(r.rows[2].measured.find(": not reproduced"), std::string::npos) << r.rows[2].measured;
  EXPECT_NE(r.note.find("1 reproduced within the printed spread, 1 not refuted (inconclusive), 1 "
                        "not reproduced, 0 with a diverged run"),
            std::string::npos)
      << r.note;
}

}  // namespace
}  // namespace fedverify::claims::games::deepgmm
