// A claim: one checkable statement of a theorem in one setting grid (DESIGN.md, "claim").
//
// A claim is defined once and used by both the ctest suite (verify/claims_slowtest.cpp runs every
// claim of the catalogue and asserts its verdict) and the report (reports/report/report.cpp prints
// it), so the report can never show something the tests do not check.
//
// Each claim lives in its own file, verify/claims/<family>/<claim>.cpp, and registers itself at
// namespace scope:
//   const bool registered = register_claim({.order = {Section::dynamics, 3}, .id = "…", …});
// catalogue() sorts the registrations by their declared `order` (never by static-initialisation
// or link order), so the report order — part of results.json — is stated in the claim files.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/plot.hpp"

namespace fedverify::claims {

// How a claim is run. `quick` selects the smaller grid used by `fedverify report --quick` and
// by ctest; the verdict rule is the same.
struct RunOptions {
  std::uint64_t seed = 20261125;
  bool quick = false;
  int threads = 0;  // 0: all hardware threads (never changes a number)
};

// A gated quantity of a row: a measured or computed value and how far it may move between two
// runs of different code before the baseline comparison (`fedverify report --baseline`) calls it
// a regression — z·SE for a simulated value, a round-off bound for an exact one. Two runs'
// values differ by more than √(tolerance² + tolerance_baseline²) ⇒ regression.
struct Gate {
  std::string name;  // unique within the row, e.g. "slope" or "mean[1]"
  double value = 0;
  double tolerance = 0;
};

// One row of the claim's grid: a setting, what theory predicts, what was measured, and the
// verdict of the claim's decision rule on that row.
// (bugprone-exception-escape: nlohmann::json's members are not declared noexcept; all they could
// throw in a move is bad_alloc, which nothing here could handle.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Row {
  std::string setting;    // e.g. "q-hetero, H = 5"
  std::string predicted;  // human-readable, e.g. "slope ≥ 1.5"
  std::string measured;   // human-readable with its uncertainty, e.g. "2.003 [1.998, 2.008]"
  bool passed = false;
  nlohmann::json data;      // every number of the row, machine-readable (results.json)
  std::vector<Gate> gates;  // every predicted quantity of the row, with its baseline tolerance
};

struct Figure {
  std::string file;  // SVG file name inside the report directory
  std::string caption;
  PlotSpec plot;  // what reports/ draws into `file`
};

struct ClaimResult {
  std::vector<Row> rows;
  std::vector<Figure> figures;
  std::string note;  // what the measurement shows beyond the verdict (e.g. which sign holds)
  // Where the theorem stops holding, in one phrase for the report's summary table, e.g.
  // "γHL ≈ 3.1 on q-small (Scaffold rate)"; empty for claims that do not map a boundary.
  std::string breaks_at;
  double seconds = 0;
  bool passed() const {
    for (const auto& r : rows) {
      if (!r.passed) return false;
    }
    return !rows.empty();
  }
};

// Claims return the plot data of their figures when `figures` is set (report); reports/ draws
// them. ctest leaves it unset.
struct Context {
  RunOptions options;
  bool figures = false;
  // Injection points; empty means the real thing, and only tests set them (verify/planted: the
  // planted-error and detection-power suites show that claims catch wrong formulas and buggy
  // samplers). Claims read them only through kit::first_order and kit::sampler_options.
  //   predictor: the first-order moments a claim compares with (default theory::first_order);
  //   round_for: the round simulated for an algorithm (default: the registered one; a null
  //              result also means the registered one).
  using Predictor = std::function<theory::FirstOrderMoments(
      const theory::ExpansionCoefficients&, theory::Algorithm, const theory::StepSetting&)>;
  using RoundFactory =
      std::function<std::shared_ptr<const estimators::RoundSampler>(theory::Algorithm)>;
  Predictor predictor;
  RoundFactory round_for;
};

// Sections of the report, in report order.
// maps: "Validity maps: where the theorems break (exact, quadratics)" (verify/claims/maps/).
enum class Section {
  quadratic_exact,
  quadratic_simulation,
  dynamics,
  logistic,
  personalised,
  maps
};

// Where a claim appears in the report and in results.json: by section, then by position.
struct ReportOrder {
  Section section = Section::quadratic_exact;
  int position = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the defaulted <=> itself
  auto operator<=>(const ReportOrder&) const = default;
};

struct Claim {
  ReportOrder order;          // declared report order (see register_claim)
  std::string id;             // stable identifier, e.g. "quadratic.fedavg.exact-remainder"
  std::string family;         // section of the report, e.g. "FedAvg and Scaffold on quadratics"
  std::string statement;      // the theorem, in words
  std::string formula;        // as in docs/THEORY.md
  std::string theory_label;   // e.g. "(F2), (F3), §8"
  std::string decision_rule;  // how the verdict is decided, with α when statistical
  double alpha = 0;           // false-alarm level; 0 for deterministic checks
  std::function<ClaimResult(const Context&)> run;
};

// Adds `claim` to the catalogue; called once per claim file from a namespace-scope initialiser.
// Returns true (the value only exists to give the registration a variable to initialise).
bool register_claim(Claim claim);

// Every registered claim, sorted by `order`. Throws std::logic_error when two claims share an
// id or an order (a copy-pasted registration).
const std::vector<Claim>& catalogue();

}  // namespace fedverify::claims
