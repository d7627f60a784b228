// reports/report/report_document: the report's content, as REPORT.md prints it. Statements: the
// summary table gives each claim its one-line statement (the card's Summary, else the
// Statement's first sentence) and its verdict, no THEORY labels or "n/n rows pass"; an
// inconclusive claim says how many times more chains would settle it, in the table and in its
// section; the verdict legend follows the table; counts are grammatical ("1 claim", "1 row").
#include "reports/report/report_document.hpp"

#include <gtest/gtest.h>

#include <string>

#include "reports/report/markdown.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::reports {
namespace {

claims::Claim claim(const std::string& id, const std::string& summary,
                    const std::string& statement) {
  claims::Claim c;
  c.id = id;
  c.family = "Family";
  c.card.summary = summary;
  c.card.statement = statement;
  c.card.theory_label = "(F2), (F3)";
  c.card.formula = "E[x] = x*";
  c.card.decision_rule = "rule";
  return c;
}

TEST(ReportDocument, SummaryFallsBackToTheFirstSentence) {
  EXPECT_EQ(claim_summary(claim("a", "One line.", "Long. Text.").card), "One line.");
  EXPECT_EQ(claim_summary(claim("a", "", "Scaffold is unbiased, e.g. on q-small. More.").card),
            "Scaffold is unbiased, e.g. on q-small.");
  EXPECT_EQ(claim_summary(claim("a", "", "No full stop").card), "No full stop");
}

TEST(ReportDocument, SummaryTableGivesStatementAndVerdictWithTheLegendAfterIt) {
  const claims::Claim held = claim("q.held", "Scaffold is unbiased & exact for x < y.", "S.");
  const claims::Claim open = claim("q.open", "", "The covariance scales like γ/N. Details.");
  claims::ClaimResult r_held, r_open;
  claims::Row exact;
  exact.setting = "s";
  exact.passed = true;
  r_held.rows.push_back(exact);
  // Not rejected: MDE 9.7 % against δ = 5 %; (9.7/2.5)² = 15.05 → ≈ 16× more chains (rounded up).
  claims::Row wide = exact;
  claims::kit::add_equivalence(wide, 0.05, false, "agreement", 0.097);  // as a claim records it
  r_open.rows = {wide, wide};
  ReportOptions o;
  o.quick = true;
  ReportContents contents;
  contents.claims = {&held, &open};
  const std::vector<claims::ClaimResult> outcomes = {r_held, r_open};
  const std::string md = render_markdown(report_document({&o, &contents, &outcomes, {}, {}}));

  EXPECT_NE(md.find("2 claims checked: 1 holds, 1 inconclusive, 0 fail."), std::string::npos);
  EXPECT_NE(md.find("| [q.held](#q.held) | Scaffold is unbiased & exact for x < y. | ✅ holds | "
                    "1: 0 / 0 / 1 / 0 |"),
            std::string::npos);
  EXPECT_NE(md.find("| [q.open](#q.open) | The covariance scales like γ/N. | ❔ inconclusive: ≈ "
                    "16× the chains would settle it | 2: 0 / 2 / 0 / 0 |"),
            std::string::npos);
  EXPECT_NE(md.find("**What would settle it.** ≈ 16× as many chains"), std::string::npos);
  EXPECT_EQ(md.find("(F2), (F3) |"), std::string::npos);  // no THEORY labels in the summary
  EXPECT_EQ(md.find("rows pass"), std::string::npos);
  EXPECT_EQ(md.find("1 rows"), std::string::npos);
  const std::size_t table = md.find("| claim | in one line | verdict |");
  ASSERT_NE(table, std::string::npos);
  EXPECT_GT(md.find("**Verdict classes.**"), table);
  EXPECT_GT(md.find("**False alarms.**"), table);
  EXPECT_LT(md.find("**False alarms.**"), md.find("### q.held"));
}

}  // namespace
}  // namespace fedverify::reports
