#include "reports/report/report_document.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "reports/report/detection_power.hpp"
#include "reports/report/verdicts.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::reports {
namespace {

using claims::VerdictClass;

// A relative figure (margin, MDE) for a table cell: "—" when the row has none.
std::string relative_cell(double v) {
  if (std::isnan(v)) return "—";
  if (std::isinf(v)) return "∞";
  return fmt::format("{:.3g} %", 100.0 * v);
}

// "≈ 4× as many chains" and why, for an inconclusive claim (verdicts.hpp, what_would_settle).
Text settle_text(const Settle& s) {
  const std::string rows =
      count_of(static_cast<std::size_t>(s.rows), "not-confirmed row", "not-confirmed rows");
  if (s.factor == 0) {
    return Text(fmt::format(
        "A larger sample (more chains or replications) would settle it: the intervals of its {} "
        "are too wide to confirm the margin.",
        rows));
  }
  return Text(fmt::format(
      "≈ {:g}× as many chains (or replications) would confirm agreement within the margin or "
      "find the error: of its {} the one furthest from the margin ({}) has MDE {} against "
      "δ = {}, and the part of its MDE that falls like 1/√n reaches δ/2 at that sample (Stein's "
      "two-stage count with this run as the pilot, rounded up; docs/VERDICTS.md).",
      s.factor, rows, s.setting, relative_cell(s.mde), relative_cell(s.margin)));
}

Text verdict_cell(const claims::ClaimResult& r) {
  const ClaimVerdict v = claim_verdict(r);
  Text t(verdict_text(v));
  if (v == ClaimVerdict::inconclusive) {
    const Settle s = what_would_settle(r);
    t.plain(s.factor > 0 ? fmt::format(": ≈ {:g}× the chains would settle it", s.factor)
                         : std::string(": a larger sample would settle it"));
  }
  return t;
}

void summary(Document& d, const ReportInputs& in) {
  const auto& selected = in.contents->claims;
  const auto& outcomes = *in.outcomes;
  Table t;
  t.sortable = true;
  for (const char* h :
       {"claim", "in one line", "verdict", "rows: equivalent / not rejected / within tol. / fail",
        "breaks at", "time"}) {
    t.header.emplace_back(h);
  }
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto& c = *selected[i];
    const auto& r = outcomes[i];
    const ClassCounts k = class_counts(r);
    t.rows.push_back({Text().link(c.id, "#" + c.id), Text(claim_summary(c.card)), verdict_cell(r),
                      Text(fmt::format("{}: {} / {} / {} / {}", r.rows.size(),
                                       k[VerdictClass::equivalent], k[VerdictClass::not_rejected],
                                       k[VerdictClass::within_tolerance], k[VerdictClass::fails])),
                      Text(r.breaks_at), Text(fmt::format("{:.1f} s", r.seconds))});
  }
  d.table(std::move(t));
}

// How to read the verdicts, in plain words for the reader of a report; the tests behind them (TOST,
// the MDE's formula, Stein's count, the rerun's arithmetic) are in docs/VERDICTS.md.
void legend(Document& d, const ClassCounts& all) {
  d.heading(2, Text("How to read the verdicts"), "how-to-read");
  d.paragraph(
      Text()
          .plain("A claim ")
          .strong("holds")
          .plain(" when every row agrees with the prediction within its stated margin or "
                 "tolerance, ")
          .strong("fails")
          .plain(" when a row disagrees (a simulated row must disagree twice, at two seeds), and "
                 "is ")
          .strong("inconclusive")
          .plain(" when nothing disagrees but the data are too few to confirm the margin; its "
                 "section says how many more samples would settle it. Rows of this report: ")
          .strong(fmt::format("{} equivalent", all[VerdictClass::equivalent]))
          .plain(", ")
          .strong(fmt::format("{} not rejected", all[VerdictClass::not_rejected]))
          .plain(fmt::format(", {} within tolerance, ", all[VerdictClass::within_tolerance]))
          .strong(fmt::format("{} fail", all[VerdictClass::fails]))
          .plain("."));
  d.paragraph(Text()
                  .strong("Verdict classes.")
                  .plain(" ")
                  .emphasis("equivalent")
                  .plain(": agreement within the margin δ is confirmed by a statistical test; ")
                  .emphasis("not rejected")
                  .plain(": no disagreement, but the uncertainty is wider than δ; ")
                  .emphasis("within tolerance")
                  .plain(": a computed (not simulated) value inside its derived tolerance; ")
                  .emphasis("fails")
                  .plain(". MDE: the smallest error of the prediction the row would catch 9 times "
                         "out of 10."));
  d.paragraph(Text()
                  .strong("False alarms.")
                  .plain(" A correct build fails a statistical claim with probability at most α² "
                         "(α ≤ 0.01), the whole report about once in a thousand runs. The tests "
                         "and their arithmetic: docs/VERDICTS.md."));
}

void claim_section(Document& d, const claims::Claim& c, const claims::ClaimResult& r) {
  d.heading(3, Text(c.id), c.id);
  d.paragraph(Text().strong("Statement.").plain(" " + c.card.statement));
  d.paragraph(Text()
                  .strong("Formula")
                  .plain(fmt::format(" (THEORY {}): ", c.card.theory_label))
                  .code(c.card.formula));
  d.paragraph(Text()
                  .strong("Decision rule.")
                  .plain(" " + c.card.decision_rule +
                         (c.alpha > 0 ? fmt::format(" (α = {})", c.alpha) : "")));
  if (!c.card.margin.empty()) {
    d.paragraph(Text().strong("Equivalence margin.").plain(" " + c.card.margin));
  }
  const ClaimVerdict v = claim_verdict(r);
  d.paragraph(Text()
                  .strong(fmt::format("Verdict: {}", verdict_text(v)))
                  .plain(fmt::format(" ({:.1f} s)", r.seconds)));
  if (v == ClaimVerdict::inconclusive) {
    d.paragraph(Text()
                    .strong("What would settle it.")
                    .plain(" ")
                    .append(settle_text(what_would_settle(r))));
  }
  if (!r.note.empty()) d.paragraph(Text().strong("Finding.").plain(" " + r.note));
  Table t;
  t.sortable = true;
  for (const char* h :
       {"setting", "predicted", "measured", "verdict", "class", "margin δ", "MDE (power 0.9)"}) {
    t.header.emplace_back(h);
  }
  for (const auto& row : r.rows) {
    const VerdictClass cls = claims::verdict_class(row);
    t.rows.push_back({Text(row.setting), Text(row.predicted), Text(row.measured),
                      Text(row_verdict(row)),
                      Text(std::string(claims::to_string(cls)) +
                           (row.first_attempt.is_null() ? "" : " (rerun: first attempt failed)")),
                      Text(row.equivalence.statistical() ? row.equivalence.margin_text : "—"),
                      Text(relative_cell(row.equivalence.mde))});
  }
  d.table(std::move(t));
  for (const auto& f : r.figures) d.figure({f.file, f.caption});
}

}  // namespace

std::string claim_summary(const claims::ClaimCard& card) {
  if (!card.summary.empty()) return card.summary;
  // The first sentence: up to the first ". " that follows a word of more than one letter and
  // is not an abbreviation (e.g., i.e., et al., cf., vs.).
  const std::string& s = card.statement;
  for (std::size_t at = s.find(". "); at != std::string::npos; at = s.find(". ", at + 1)) {
    std::size_t w = at;
    while (w > 0 && std::isalpha(static_cast<unsigned char>(s[w - 1])) != 0) --w;
    const std::string word = s.substr(w, at - w);
    if (word == "g" || word == "e" || word == "al" || word == "cf" || word == "vs") continue;
    return s.substr(0, at + 1);
  }
  return s;
}

Document report_document(const ReportInputs& in) {
  const ReportOptions& o = *in.options;
  const ReportContents& contents = *in.contents;
  const auto& selected = contents.claims;
  const auto& outcomes = *in.outcomes;
  std::size_t failures = 0, inconclusive = 0;
  ClassCounts all;
  for (const auto& r : outcomes) {
    const ClaimVerdict v = claim_verdict(r);
    failures += v == ClaimVerdict::fails ? 1 : 0;
    inconclusive += v == ClaimVerdict::inconclusive ? 1 : 0;
    for (const auto& row : r.rows) all.add(claims::verdict_class(row));
  }
  Document d;
  d.heading(1, Text("fedverify report"));
  d.paragraph(Text(fmt::format(
      "{} checked: {} {}, {} inconclusive, {} {}{}. Seed {}{}. Verdicts are explained after "
      "the table.",
      count_of(selected.size(), "claim", "claims"), selected.size() - failures - inconclusive,
      selected.size() - failures - inconclusive == 1 ? "holds" : "hold", inconclusive, failures,
      failures == 1 ? "fails" : "fail",
      o.baseline.empty()
          ? ""
          : fmt::format("; {} against {}",
                        count_of(in.regressions.size(), "regression", "regressions"), o.baseline),
      o.seed, o.quick ? ", quick grid" : "")));
  if (!in.mismatches.empty()) {
    d.paragraph(Text()
                    .strong("Baseline provenance mismatch")
                    .plain(" (compared anyway, --baseline-mismatch-ok): the baseline differs "
                           "from this run in"));
    std::vector<Text> items;
    for (const auto& m : in.mismatches) items.emplace_back(m);
    d.list(std::move(items));
  }
  summary(d, in);
  legend(d, all);
  std::string family;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (selected[i]->family != family) {
      family = selected[i]->family;
      d.heading(2, Text(family));
    }
    claim_section(d, *selected[i], outcomes[i]);
  }
  if (!in.regressions.empty()) {
    d.heading(2, Text("Regressions against the baseline"));
    std::vector<Text> items;
    for (const auto& s : in.regressions) items.emplace_back(s);
    d.list(std::move(items));
  }
  if (!contents.problems.empty()) {
    d.heading(2, Text("Problems"));
    std::vector<Text> items;
    for (const auto* np : contents.problems) {
      items.push_back(
          Text().code(np->name).plain(": " + np->description + " (spec in results.json)"));
    }
    d.list(std::move(items));
  }
  if (!contents.problems_note.empty()) d.paragraph(Text(contents.problems_note));
  // The detection-power table: committed data (detection_power.hpp), not computed by this run.
  if (contents.detection_power) d.append(detection_power_document(committed_detection_power()));
  return d;
}

}  // namespace fedverify::reports
