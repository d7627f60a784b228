// Resource limits (theory/problems/limits.hpp): overflow-safe arithmetic, range and memory
// messages naming the field, and quoting of user text (one line, capped).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory::limits {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(Limits, SaturatingArithmetic) {
  EXPECT_EQ(saturating_mul(3, 4), 12);
  EXPECT_EQ(saturating_mul(kMax / 2, 3), kMax);
  EXPECT_EQ(saturating_mul(std::int64_t{1} << 40, std::int64_t{1} << 40), kMax);
  EXPECT_EQ(saturating_add(kMax - 1, 5), kMax);
  EXPECT_EQ(saturating_add(2, 5), 7);
}

TEST(Limits, RangeNamesTheField) {
  EXPECT_NO_THROW(require_range("--rounds", 10, 1, 100));
  try {
    require_range("--rounds", 2147483647, 1, kMaxRounds, "why");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--rounds"), std::string::npos) << m;
    EXPECT_NE(m.find("2147483647"), std::string::npos) << m;
    EXPECT_NE(m.find("why"), std::string::npos) << m;
  }
}

TEST(Limits, MemoryNamesTheBytesAndTheFlag) {
  EXPECT_NO_THROW(require_memory("--chains", "x", 10, 10));
  try {
    require_memory("--chains", "1000 chains", 12345678901, kDefaultMemoryBudget);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("12345678901 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("--memory-budget"), std::string::npos) << m;
  }
}

TEST(Limits, QuotedInputIsOneLineAndCapped) {
  EXPECT_EQ(escape_control("a\nb\tc\x01"), "a\\nb\\tc\\u0001");
  const std::string quoted = quote_input(std::string(10000, 'x'));
  EXPECT_LT(quoted.size(), kMaxQuotedChars + 40);
  EXPECT_NE(quoted.find("10000 bytes"), std::string::npos);
}

TEST(Limits, JsonNestingIsRefusedAtOnce) {
  for (const int depth : {kMaxJsonDepth + 1, 100000}) {
    const std::string text = std::string(static_cast<std::size_t>(depth), '[') + "1" +
                             std::string(static_cast<std::size_t>(depth), ']');
    try {
      parse_json_text(text, "deep.json");
      FAIL() << "depth " << depth << " accepted";
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("nesting deeper than 64"), std::string::npos) << m;
      EXPECT_LT(m.size(), 400U);
    }
  }
  EXPECT_NO_THROW(parse_json_text(
      std::string(kMaxJsonDepth, '[') + std::string(static_cast<std::size_t>(kMaxJsonDepth), ']'),
      "ok.json"));
}

}  // namespace
}  // namespace fedverify::theory::limits
