// The verdicts of claim games.deepgmm-on-par (deepgmm_on_par.cpp) on constructed studies: a
// trainer within the factor of its reference on every run is "on par", one planted five times
// worse on every run fails its row, and a noisy one is left inconclusive (the row passes,
// unconfirmed).
#include <gtest/gtest.h>

#include <string>

#include "verify/claims/claim.hpp"
#include "verify/claims/games/deepgmm_study.hpp"

namespace fedverify::claims::games::deepgmm {
namespace {

// One scenario's five cells (trainer order of trainers()), OAdam's MSE 0.02 on every run.
StudyResult study(const std::vector<double>& gda, const std::vector<double>& sgda) {
  StudyResult s;
  const auto f = theory::IvFunction::absolute;
  const std::vector<double> oadam(gda.size(), 0.02);
  s.cells = {{f, 0, gda, 0}, {f, 1, sgda, 0}, {f, 2, oadam, 0}, {f, 3, oadam, 0}, {f, 4, oadam, 0}};
  return s;
}

TEST(DeepGmmOnPar, OnParWorseAndInconclusiveAreToldApart) {
  // GDA ≈ OAdam (ratios 0.9–1.1), SGDA five times worse on every run (the planted failure).
  ClaimResult r =
      on_par_claim(study({0.018, 0.022, 0.020, 0.019, 0.021}, {0.10, 0.11, 0.09, 0.10, 0.10}));
  ASSERT_EQ(r.rows.size(), 4U);  // GDA, SGDA vs OAdam; FedGDA vs GDA, FedSGDA vs SGDA
  EXPECT_TRUE(r.rows[0].passed);
  EXPECT_NE(r.rows[0].measured.find(": on par"), std::string::npos) << r.rows[0].measured;
  EXPECT_EQ(verdict_class(r.rows[0]), VerdictClass::equivalent);
  EXPECT_FALSE(r.rows[1].passed);
  EXPECT_NE(r.rows[1].measured.find(": worse"), std::string::npos) << r.rows[1].measured;
  // Ratios from 0.5 to 8: neither confirmed nor significantly worse.
  r = on_par_claim(study({0.018, 0.022, 0.020, 0.019, 0.021}, {0.01, 0.16, 0.02, 0.08, 0.04}));
  EXPECT_TRUE(r.rows[1].passed);
  EXPECT_NE(r.rows[1].measured.find(": not refuted"), std::string::npos) << r.rows[1].measured;
  EXPECT_EQ(verdict_class(r.rows[1]), VerdictClass::not_rejected);
  // Only the trainer diverged: worse.
  StudyResult d = study({0.018, 0.022, 0.020, 0.019, 0.021}, {0.02, 0.02, 0.02, 0.02, 0.02});
  d.cells[1].diverged = 1;
  EXPECT_FALSE(on_par_claim(d).rows[1].passed);
  // FedGDA (cell 2, MSE 0.02) against GDA (≈ 0.02): on par; against a GDA five times better: worse.
  EXPECT_NE(r.rows[2].measured.find(": on par"), std::string::npos) << r.rows[2].measured;
  StudyResult f = study({0.004, 0.0041, 0.0039, 0.004, 0.004}, {0.02, 0.02, 0.02, 0.02, 0.02});
  EXPECT_FALSE(on_par_claim(f).rows[2].passed);
}

}  // namespace
}  // namespace fedverify::claims::games::deepgmm
