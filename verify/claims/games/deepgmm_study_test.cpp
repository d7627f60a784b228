// The DeepGMM study of claim games.deepgmm-table (deepgmm_study.hpp) on a small setting: the
// same seed gives bit-identical results on 1 and 2 threads (tasks are pure functions of their
// seeds), and another seed gives other results.
#include <gtest/gtest.h>

#include "verify/claims/games/deepgmm_study.hpp"

namespace fedverify::claims::games::deepgmm {
namespace {

StudyOptions small(int threads) {
  StudyOptions o;
  o.functions = {theory::IvFunction::step};
  o.runs = 2;
  o.samples = 400;
  o.round_scale = 0.01;
  o.threads = threads;
  return o;
}

TEST(DeepGmmStudy, SameSeedSameResultsOnOneAndTwoThreads) {
  const StudyResult a = run_study(small(1));
  const StudyResult b = run_study(small(2));
  ASSERT_EQ(a.cells.size(), kTrainers);
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].diverged, 0);
    // Bit-identical (NaN would compare unequal, and no run diverged).
    EXPECT_EQ(a.cells[i].mse, b.cells[i].mse) << "cell " << i;
  }
  for (std::size_t f = 0; f < a.curves.size(); ++f) {
    EXPECT_EQ(a.curves[f].g_hat, b.curves[f].g_hat);
    EXPECT_EQ(a.curves[f].g0, b.curves[f].g0);
  }
  StudyOptions other = small(2);
  other.seed = 2;
  EXPECT_NE(run_study(other).cells[0].mse, a.cells[0].mse);
}

}  // namespace
}  // namespace fedverify::claims::games::deepgmm
