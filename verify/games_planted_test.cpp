// Claims games.client-epsilon and games.gmm-identities catch planted errors in the formulas they
// check (THEORY M3, M4); both pass with the real formulas.
// - (M3b) without its ½: the gap identity rows fail (the definition gives half the planted form).
// - (M3c) with c = ¼ in place of ½: the bound rows fail (fitted c reaches ≈ 0.4) and the
//   sharpness row (c = ½ attained at condition 1).
// - Lemma 1's objective with ½ in place of ¼: the numerical suprema are half the closed forms,
//   so the Lemma 1, (a) and (b) rows of every data set fail.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "theory/closed_forms/game_equilibria.hpp"
#include "theory/closed_forms/gmm_identities.hpp"
#include "verify/claims/games/client_epsilon.hpp"
#include "verify/claims/games/gmm_identities.hpp"

namespace fedverify::claims {
namespace {

int failed_rows(const ClaimResult& r, const std::string& containing) {
  int failed = 0;
  for (const auto& row : r.rows) {
    if (!row.passed) {
      EXPECT_NE(row.setting.find(containing), std::string::npos) << row.setting;
      ++failed;
    }
  }
  return failed;
}

Context quick() {
  Context ctx;
  ctx.options.quick = true;
  return ctx;
}

TEST(GamesPlanted, GapWithoutItsHalfFailsClientEpsilon) {
  EXPECT_TRUE(games::run_client_epsilon(quick(), theory::client_epsilon).passed());
  const ClaimResult r =
      games::run_client_epsilon(quick(), [](const theory::QuadraticGame& g, int i) {
        theory::ClientEpsilon e = theory::client_epsilon(g, i);
        e.gap *= 2.0;
        return e;
      });
  const int failed = failed_rows(r, "(definition)");
  fmt::print("(M3b) without 1/2: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_EQ(failed, 4);  // the identity row of each of the four families
}

TEST(GamesPlanted, BoundConstantQuarterFailsClientEpsilon) {
  const ClaimResult r =
      games::run_client_epsilon(quick(), [](const theory::QuadraticGame& g, int i) {
        theory::ClientEpsilon e = theory::client_epsilon(g, i);
        e.bound *= 0.5;  // c = ¼
        return e;
      });
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("(M3c) with c = 1/4: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_GE(failed, 2);
  for (const auto& row : r.rows) {
    if (row.setting.find("condition 1") != std::string::npos) {
      EXPECT_FALSE(row.passed);
    }
  }
}

TEST(GamesPlanted, PenaltyHalfFailsGmmIdentities) {
  EXPECT_TRUE(games::run_gmm_identities(quick(), theory::gmm_penalised_moment).passed());
  const ClaimResult r =
      games::run_gmm_identities(quick(), [](const theory::GmmMoments& m, const Vector& tau) {
        return tau.dot(m.psi) - 0.5 * tau.dot(m.cov * tau);
      });
  int failed = 0;
  for (const auto& row : r.rows) failed += row.passed ? 0 : 1;
  fmt::print("Lemma 1 with 1/2 for 1/4: {} of {} rows fail\n", failed, r.rows.size());
  EXPECT_EQ(failed, 6);  // Lemma 1, (a) and (b) of both quick data sets
}

}  // namespace
}  // namespace fedverify::claims
