// A claim: one checkable statement of a theorem in one setting grid (docs/ARCHITECTURE.md, Claims).
//
// A claim is defined once and used by both the ctest suite (verify/claims_slowtest.cpp runs every
// claim of the catalogue and asserts its verdict) and the report (reports/report/report.cpp prints
// it), so the report can never show something the tests do not check.
//
// Each claim lives in its own file, verify/claims/<family>/<claim>.cpp, which opens with the
// claim's card (card.hpp: statement, formula, setting, decision rule, sample row) and registers
// itself at namespace scope:
//   const bool registered =
//       register_claim({.id = kId, .order = {Section::dynamics, 3}, .card = kCard, .run = run});
// catalogue() sorts the registrations by their declared `order` (never by static-initialisation
// or link order), so the report order — part of results.json — is stated in the claim files.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/card.hpp"
#include "verify/claims/default_seed.hpp"
#include "verify/claims/plot.hpp"
#include "verify/claims/task_spread.hpp"

namespace fedverify::claims {

// How a claim is run. `quick` selects the smaller grid used by `fedverify report --quick` and
// by ctest; the verdict rule is the same.
struct RunOptions {
  std::uint64_t seed = kDefaultSeed;
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

// The equivalence part of a statistical row (issue 13: a verdict that means agreement, not only
// "not rejected"), filled by kit/verdict.hpp. Besides its rule, a statistical row runs two
// one-sided tests (estimators/statistics/decide.hpp (l)) of "the measured quantity agrees with
// the prediction within δ·|scale|" at the rule's α, and reports the relative minimum detectable
// error of its rule at power 0.9 ((m)). A one-sided claim (a bound, or "θ > s0") is confirmed by
// the one-sided half (margin 0). Deterministic rows leave `margin` NaN.
struct Equivalence {
  double margin = std::numeric_limits<double>::quiet_NaN();  // δ, relative to the row's scale
  std::string margin_text;                                   // e.g. "±5 %" or "one-sided"
  bool confirmed = false;  // every test of the row confirms (intersection–union)
  double mde = std::numeric_limits<double>::quiet_NaN();  // relative, worst component
  std::vector<std::string> tests;                         // one line per test, for results.json
  // When a test with a margin is not confirmed: the budget multiple that would bring the part of
  // its MDE that shrinks with the sample to δ/2 (estimators::stein_budget_multiple, with the
  // rule's allowance; the largest over the row's tests), else 0.
  double budget_multiple = 0;
  bool statistical() const { return !std::isnan(margin); }
};

// What a row's verdict means (REPORT.md column "class", results.json "verdict_class").
enum class VerdictClass {
  within_tolerance,  // deterministic row inside its derived round-off / remainder tolerance
  equivalent,    // statistical row: the TOST confirms agreement within δ at confidence 1 − α
  not_rejected,  // statistical row: the rule does not reject, the TOST does not confirm δ
  fails,         // the rule rejects (a statistical row: at the run seed AND at the
                 // confirmation seed, see run_claim)
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
  Equivalence equivalence;  // statistical rows only (kit/verdict.hpp)
  // Set by run_claim when the row failed at the run seed: it was rerun at an independent seed
  // and this row is the rerun's; `first_attempt` keeps the failed attempt (seed-free summary).
  nlohmann::json first_attempt;
};

VerdictClass verdict_class(const Row& row);
const char* to_string(VerdictClass c);

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
  double seconds = 0;  // wall time of the run, stamped by the catalogue (Claim::run)
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
  // 0: the run at options.seed; 1: the confirmation rerun of run_claim, whose row seeds are
  // hashed from the first attempt's (kit::row_seed), so the two attempts are independent.
  int attempt = 0;
  // Injection points; empty means the real thing, and only tests set them (verify/planted: the
  // planted-error and detection-power suites show that claims catch wrong formulas and buggy
  // samplers). Claims read them only through kit::first_order and kit::sampler_options.
  //   predictor: the first-order moments a claim compares with (default theory::first_order);
  //   round_for: the round simulated for an algorithm (default: the registered one; a null
  //              result also means the registered one).
  using Predictor = std::function<theory::FirstOrderMoments(
      const theory::ExpansionCoefficients&, theory::Algorithm, const theory::RunSetting&)>;
  using RoundFactory =
      std::function<std::shared_ptr<const estimators::RoundSampler>(theory::Algorithm)>;
  Predictor predictor;
  RoundFactory round_for;
  // The processes this run of a sweep claim shares its tasks with (task_spread.hpp); null: this
  // process alone. Claims read it only through kit::spread_tasks.
  const TaskSpread* spread = nullptr;
};

// Sections of the report, in report order; section_title names each (the report's headings).
enum class Section {
  quadratic_exact,
  quadratic_simulation,
  dynamics,
  logistic,
  linear_sa,
  heterogeneity,
  personalised,
  maps,
  optimisers,
  optimiser_study,
  games,
  deepgmm_study
};

// The report's heading of `section`, e.g. "Logistic regression: stationary bias".
std::string_view section_title(Section section);

// Where a claim appears in the report and in results.json: by section, then by position.
struct ReportOrder {
  Section section = Section::quadratic_exact;
  int position = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the defaulted <=> itself
  auto operator<=>(const ReportOrder&) const = default;
};

using ClaimRun = std::function<ClaimResult(const Context&)>;

// Family-wise false-alarm level of a statistical claim: the probability that a true claim fails
// on a given seed. Each claim splits it (Bonferroni) over its tests, and says how in its rule.
inline constexpr double kFamilyAlpha = 0.01;

// What a claim file registers: its id, its place, its card (the text; parsed by catalogue()) and
// its run function.
struct ClaimRegistration {
  std::string id;               // stable identifier, e.g. "quadratic.exact-remainder-order"
  ReportOrder order;            // declared report order
  std::string_view card;        // the claim card (card.hpp), a string literal of the claim file
  CardValues values = {};       // the values of the card's ${name} placeholders
  double alpha = kFamilyAlpha;  // false-alarm level of the decision rule; 0: deterministic
  // An opt-in claim (a long study) is left out of the default report (`--only` not given) and
  // runs only when `--only` is given and matches it, e.g. --only 'optimisers.study*'.
  bool opt_in = false;
  // A hypothesis: an empirical statement of a source (e.g. a finding of the thesis's optimiser
  // study) put to the test, so that a failing verdict is a result (the source is refuted on this
  // setting), not a defect of fedverify. The report shows it like any claim; claims_slowtest does
  // not require it to hold (its planted perturbation shows that it can fail).
  bool hypothesis = false;
  // Claims that share one computation (kit::once_per_run: the optimiser study's table and its
  // findings) give it the same name here; a report spread over MPI ranks runs them on one rank
  // (reports/report/ranks.hpp), or, when they are sweeps, every one of them on every rank, so the
  // computation runs once (spread). Empty: the claim shares nothing.
  std::string shared_run = {};
  // A sweep: its independent tasks (grid lines, replications, data seeds) go through
  // kit::spread_tasks, so a report across MPI ranks runs it on every rank together, each rank
  // computing a share of the tasks (task_spread.hpp), instead of on one rank.
  bool sweep = false;
  ClaimRun run;
};

// A claim of the catalogue.
struct Claim {
  ReportOrder order;
  std::string id;
  std::string family;  // section_title(order.section)
  ClaimCard card;      // statement, formula, THEORY labels, decision rule, …
  double alpha = 0;
  bool opt_in = false;      // ClaimRegistration::opt_in
  bool hypothesis = false;  // ClaimRegistration::hypothesis
  std::string shared_run;   // ClaimRegistration::shared_run
  bool sweep = false;       // ClaimRegistration::sweep
  ClaimRun run;             // the registered run, timed (ClaimResult::seconds)
};

// Runs `claim` with false alarms confirmed: a statistical row that fails at the run seed is
// declared failed only if the same row (same setting) fails again in a rerun of the claim at an
// independent seed (Context::attempt = 1); otherwise the row shows the rerun, its class at most
// `not rejected`. Deterministic rows (no equivalence margin) are never rerun. A claim whose
// rows fail with probability ≤ α at a seed then fails with probability ≤ α² (the attempts are
// independent), so the whole report's false-alarm rate is ≤ Σ_claims α_c² (≈ 1e-3 for about ten
// claims at α = 0.01); a real error fails both attempts, so it costs power only against errors
// the rule detects with probability well below 1 (power p becomes p²).
ClaimResult run_claim(const Claim& claim, const Context& ctx);

// Adds a claim to the catalogue; called once per claim file from a namespace-scope initialiser.
// Returns true (the value only exists to give the registration a variable to initialise).
bool register_claim(ClaimRegistration registration);

// Every registered claim, sorted by `order`, its card parsed. Throws std::logic_error when two
// claims share an id or an order (a copy-pasted registration) or a card is malformed (naming the
// claim and the field).
const std::vector<Claim>& catalogue();

// The claim of the catalogue with this id; throws std::logic_error when there is none.
const Claim& claim_by_id(std::string_view id);

}  // namespace fedverify::claims
