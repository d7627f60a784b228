// The claim kit (verify/claims/kit/kit.hpp): row seeds.
#include <gtest/gtest.h>

#include <cstdint>

#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims {
namespace {

// Row seeds (kit::row_seed): a pure function of (run seed, claim id, row key) — the same inputs
// give the same seed in any order of calls — and any change of an input gives another seed,
// including moving a byte across the id/key boundary. The first value is pinned: results.json
// and the baseline record seeds, so the hash must not change silently (the value was computed
// by an independent implementation of the mix documented in kit.hpp).
constexpr std::uint64_t kPinnedRowSeed = 3943545061596912438ULL;

TEST(RowSeed, DeterministicDistinctAndPinned) {
  const std::uint64_t a = kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row");
  EXPECT_EQ(a, kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row"));
  EXPECT_NE(a, kit::row_seed(20261126, "quadratic.simulated-vs-exact", "row"));
  EXPECT_NE(a, kit::row_seed(20261125, "quadratic.simulated-vs-exact", "row "));
  EXPECT_NE(kit::row_seed(1, "ab", "c"), kit::row_seed(1, "a", "bc"));
  EXPECT_EQ(a, kPinnedRowSeed);
}

// The confirmation attempt (Context::attempt) changes every row seed and keeps attempt 0's.
TEST(RowSeed, ConfirmationAttemptsAreIndependentSeeds) {
  Context ctx;
  ctx.options.seed = 20261125;
  const std::uint64_t first = kit::row_seed(ctx, "quadratic.simulated-vs-exact", "row");
  EXPECT_EQ(first, kPinnedRowSeed);
  ctx.attempt = 1;
  const std::uint64_t second = kit::row_seed(ctx, "quadratic.simulated-vs-exact", "row");
  EXPECT_NE(second, first);
  ctx.attempt = 2;
  EXPECT_NE(kit::row_seed(ctx, "quadratic.simulated-vs-exact", "row"), second);
}

}  // namespace
}  // namespace fedverify::claims
