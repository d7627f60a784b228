// A claim card: the text that opens a claim file (verify/claims/<family>/<claim>.cpp) and is at
// once the file's documentation and the claim's entry in the report, so that the statement, the
// formula and the decision rule are written once.
//
// A card is a list of fields. A field starts a line with its name and a colon; the lines that
// follow it, indented by two spaces, continue it (joined with one space; spacing inside a line is
// kept, so a double space, as between the parts of a formula, must not fall at a line break).
// Blank lines are ignored.
//
//   Summary: the statement in one plain line, no more than ~110 characters (report: the
//     summary table's "in one line"; optional, the Statement's first sentence when absent)
//   Statement: the theorem, in words                               (report: **Statement.**)
//   Formula: the formula, as in docs/THEORY.md                     (report: **Formula**)
//   THEORY: its labels in docs/THEORY.md, e.g. (F2), (F3), §8      (report: THEORY …)
//   Setting: problems, grid, chains, replications                  (documentation)
//   Decision: how the verdict is decided, with α when statistical  (report: **Decision rule.**)
//   Sample row: a row of reports/baseline/REPORT.md                (documentation)
//   Notes: optional; what the code adds to the decision (the rules of decide.hpp it uses, …)
//   Margin: statistical claims only (catalogue_test requires it exactly when α > 0): the
//     equivalence margin δ of the rows and why — the remainder order, or for an exact
//     prediction the resolution that matters (issue 13)   (report: **Equivalence margin.**)
//
// Every field but Summary, Notes and Margin is required, once. A value that the claim's code
// computes (a constant, a problem's name) is written `${name}` and supplied at registration
// (ClaimRegistration::values), so the number is not written twice; every placeholder must be
// supplied and every supplied value used.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fedverify::claims {

struct ClaimCard {
  std::string summary;  // optional: the statement in one line
  std::string statement;
  std::string formula;
  std::string theory_label;
  std::string setting;
  std::string decision_rule;
  std::string sample_row;
  std::string notes;   // optional
  std::string margin;  // statistical claims: the equivalence margin δ and why
};

// The value of a `${name}` placeholder: a text, or a number that the claim's code owns, written
// as fmt writes it by default (shortest round trip: 0.1, 1e-05, 3000). The constructors are
// implicit so that a registration lists {"eps", kRelativeEps} or {"problem", quadratic_name()}.
class CardValue {
 public:
  CardValue(std::string text) : text_(std::move(text)) {}
  CardValue(const char* text) : text_(text) {}
  CardValue(double number);
  CardValue(int number);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// The values of a card's placeholders, by name.
using CardValues = std::vector<std::pair<std::string, CardValue>>;

// Parses `text` and substitutes `values`. Throws std::invalid_argument naming the line or the
// field: an unknown, repeated or missing field, a line that belongs to no field, an unsupplied
// placeholder or an unused value.
ClaimCard parse_card(std::string_view text, const CardValues& values = {});

}  // namespace fedverify::claims
