// Claim cards (card.hpp): the fields, their continuation lines and placeholders, and every way a
// card can be malformed, each rejected with a message naming the line or the field.
#include "verify/claims/card.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace fedverify::claims {
namespace {

constexpr std::string_view kCard = R"(
Statement: Scaffold's stationary mean is x*,
  even with heterogeneous clients.
Formula: E_π[x] = x*;  exact
THEORY: (S3)

Setting: q-small, γL = 0.05
Decision: ‖m − x*‖ ≤ ${tolerance}
Sample row:
  | q-small | 0 |
  | q-gen5 | 0 |
)";

// The message of the std::invalid_argument that parse_card throws, or "" when it does not.
std::string error_of(std::string_view text, const CardValues& values = {}) {
  try {
    parse_card(text, values);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ClaimCard, ReadsFieldsJoinsContinuationsKeepsInnerSpacingAndSubstitutes) {
  const ClaimCard c = parse_card(kCard, {{"tolerance", "1e-12"}});
  EXPECT_EQ(c.statement, "Scaffold's stationary mean is x*, even with heterogeneous clients.");
  EXPECT_EQ(c.formula, "E_π[x] = x*;  exact");
  EXPECT_EQ(c.theory_label, "(S3)");
  EXPECT_EQ(c.setting, "q-small, γL = 0.05");
  EXPECT_EQ(c.decision_rule, "‖m − x*‖ ≤ 1e-12");
  EXPECT_EQ(c.sample_row, "| q-small | 0 | | q-gen5 | 0 |");
  EXPECT_EQ(c.notes, "");
  EXPECT_EQ(c.summary, "");  // optional: the report falls back to the first sentence
}

TEST(ClaimCard, SummaryIsOptionalAndReadWithItsContinuation) {
  const std::string card = "Summary: Scaffold is unbiased\n  on quadratics.\n" + std::string(kCard);
  EXPECT_EQ(parse_card(card, {{"tolerance", "0"}}).summary, "Scaffold is unbiased on quadratics.");
}

TEST(ClaimCard, NumbersAreWrittenShortest) {
  const std::string card =
      "Statement: s\nFormula: f\nTHEORY: t\nSetting: ${n} chains\nDecision: ε = ${eps}, "
      "${small}, ${third}\nSample row: r\n";
  const ClaimCard c =
      parse_card(card, {{"n", 3000}, {"eps", 0.1}, {"small", 1e-4 / 10}, {"third", 1.0 / 3}});
  EXPECT_EQ(c.setting, "3000 chains");
  EXPECT_EQ(c.decision_rule, "ε = 0.1, 1e-05, 0.3333333333333333");
}

TEST(ClaimCard, NotesAreOptionalAndRead) {
  const std::string card = std::string(kCard) + "Notes: decide.hpp (f)\n";
  EXPECT_EQ(parse_card(card, {{"tolerance", "0"}}).notes, "decide.hpp (f)");
}

TEST(ClaimCard, MarginIsOptionalAndRead) {
  EXPECT_EQ(parse_card(kCard, {{"tolerance", "0"}}).margin, "");
  const std::string card = std::string(kCard) + "Margin: δ = ${delta} of the\n  exact value\n";
  EXPECT_EQ(parse_card(card, {{"tolerance", "0"}, {"delta", 0.05}}).margin,
            "δ = 0.05 of the exact value");
}

TEST(ClaimCard, RejectsMissingRepeatedUnknownAndOrphanLines) {
  EXPECT_NE(error_of("Statement: s\nFormula: f\nTHEORY: t\nSetting: s\nSample row: r\n")
                .find("Decision is missing"),
            std::string::npos);
  EXPECT_NE(
      error_of(std::string(kCard) + "THEORY: (S4)\n", {{"tolerance", "0"}}).find("THEORY repeated"),
      std::string::npos);
  EXPECT_NE(error_of("Statment: s\n").find("line 1 starts no field"), std::string::npos);
  EXPECT_NE(error_of("no colon here\n").find("line 1 starts no field"), std::string::npos);
  EXPECT_NE(error_of("\n  orphan\n").find("line 2 is indented but continues no field"),
            std::string::npos);
  EXPECT_NE(error_of("Statement:\nFormula: f\nTHEORY: t\nSetting: s\nDecision: d\nSample row: r")
                .find("Statement is missing or empty"),
            std::string::npos);
}

TEST(ClaimCard, RejectsUnsuppliedPlaceholdersAndUnusedValues) {
  EXPECT_NE(error_of(kCard).find("Decision: no value for ${tolerance}"), std::string::npos);
  EXPECT_NE(error_of(kCard, {{"tolerance", "0"}, {"spare", "1"}}).find("${spare} is not used"),
            std::string::npos);
  const std::string unterminated =
      "Statement: s\nFormula: f\nTHEORY: t\nSetting: s\nDecision: ${x\nSample row: r\n";
  EXPECT_NE(error_of(unterminated, {{"x", "1"}}).find("unterminated"), std::string::npos);
}

}  // namespace
}  // namespace fedverify::claims
