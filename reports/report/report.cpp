#include "reports/report/report.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "reports/report/claim_codec.hpp"
#include "reports/report/detection_power.hpp"
#include "reports/report/figures.hpp"
#include "reports/report/progress.hpp"
#include "reports/report/rank_spread.hpp"
#include "reports/report/ranks.hpp"
#include "reports/report/staged_directory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::reports {
namespace {

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

// A row holds when it agrees within its declared margin (equivalent) or tolerance; a row that
// passes its rule but whose agreement the margin's TOST does not confirm reads "not confirmed"
// (claim.hpp, VerdictClass::not_rejected): "holds" means agreement within a stated margin, not
// "was not rejected".
std::string row_verdict(const claims::Row& row) {
  if (!row.passed) return "❌ fails";
  return claims::verdict_class(row) == claims::VerdictClass::not_rejected ? "❔ not confirmed"
                                                                          : "✅ holds";
}

// A claim holds when every row holds, fails when a row fails, and is otherwise inconclusive (no
// row fails, some are only not rejected). The exit status and the baseline gate use `passed`
// (no row fails); "inconclusive" is what the report and results.json ("verdict") say about it.
enum class ClaimVerdict { holds, inconclusive, fails };

ClaimVerdict claim_verdict(const claims::ClaimResult& r) {
  if (!r.passed()) return ClaimVerdict::fails;
  for (const auto& row : r.rows) {
    if (claims::verdict_class(row) == claims::VerdictClass::not_rejected) {
      return ClaimVerdict::inconclusive;
    }
  }
  return ClaimVerdict::holds;
}

const char* to_string(ClaimVerdict v) {
  switch (v) {
    case ClaimVerdict::holds:
      return "holds";
    case ClaimVerdict::inconclusive:
      return "inconclusive";
    case ClaimVerdict::fails:
      break;
  }
  return "fails";
}

std::string verdict(ClaimVerdict v) {
  const char* icon = v == ClaimVerdict::holds ? "✅" : v == ClaimVerdict::fails ? "❌" : "❔";
  return fmt::format("{} {}", icon, to_string(v));
}

// Verdict classes of a set of rows (claim.hpp, VerdictClass), counted by class.
struct ClassCounts {
  std::array<int, 4> n{};  // indexed by VerdictClass
  void add(claims::VerdictClass c) { ++n.at(static_cast<std::size_t>(c)); }
  int operator[](claims::VerdictClass c) const { return n.at(static_cast<std::size_t>(c)); }
  nlohmann::json json() const {
    using enum claims::VerdictClass;
    return {{"within_tolerance", (*this)[within_tolerance]},
            {"equivalent", (*this)[equivalent]},
            {"not_rejected", (*this)[not_rejected]},
            {"fails", (*this)[fails]}};
  }
};

// A relative figure (margin, MDE) for a table cell: "—" when the row has none.
std::string relative_cell(double v) {
  if (std::isnan(v)) return "—";
  if (std::isinf(v)) return "∞";
  return fmt::format("{:.3g} %", 100.0 * v);
}

// JSON number or null (NaN / ∞ are not JSON).
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// How the report controls its false alarms (REPORT.md and docs/ARCHITECTURE.md say the same).
constexpr const char* kFalseAlarmControl =
    "**False alarms.** Each statistical claim fails a correct build with probability ≤ α (its "
    "family-wise level, 0.01 or less). A statistical row that fails is rerun once at an "
    "independent seed (hashed from its row seed) and declared failed only if it fails again; "
    "otherwise the rerun's row is shown, with the failed attempt in results.json, and its class "
    "is at most \"not rejected\". Attempts are independent, so a claim fails a correct build "
    "with probability ≤ α², and the whole report with probability ≤ Σ α² ≈ 1e-3 when every "
    "claim holds its α (measured: verify/calibration/report_false_alarms.sh). A real error fails "
    "both attempts.\n\n"
    "**Verdict classes.** *equivalent*: two one-sided tests (TOST) confirm agreement with the "
    "prediction within the declared margin δ at confidence 1 − α (a bound or a one-sided claim: "
    "its one-sided test confirms it); *not rejected*: the rule does not reject, but the interval "
    "is too wide to confirm δ; *within tolerance*: a deterministic row inside its derived "
    "round-off or remainder tolerance; *fails*. MDE: the smallest relative error that makes the "
    "row fail (both attempts) with probability 0.9, i.e. the rule's minimum detectable error "
    "at power √0.9 per attempt (estimators/statistics/decide.hpp (m)).\n\n";

// |now − before| > √(tol_now² + tol_before²): the value moved by more than both runs allow.
bool moved(double v, double vb, double tol, double tol_b, const std::string& name,
           std::string& why) {
  const double combined = std::hypot(tol, tol_b);
  if (std::abs(v - vb) <= combined) return false;
  why = fmt::format("{} moved from {:.6g} to {:.6g} (tolerance {:.3g})", name, vb, v, combined);
  return true;
}

// A row regressed when its verdict flipped or a gated quantity moved by more than its combined
// tolerance. Rows carry typed gates ("gates": [{name, value, tolerance}], claim.hpp): every gate
// of the baseline row must exist now and agree. Rows also keep the single quantity that
// baselines written before gates existed declare ("value" and "tolerance" in the row's data); it
// is compared whenever both runs have it, so old baselines stay readable.
bool row_regressed(const nlohmann::json& now, const nlohmann::json& before, std::string& why) {
  if (now.value("passed", false) != before.value("passed", false)) {
    why = fmt::format("verdict flipped: {} → {}", before.value("passed", false) ? "holds" : "fails",
                      now.value("passed", false) ? "holds" : "fails");
    return true;
  }
  if (before.contains("gates")) {
    const auto gates_now = now.value("gates", nlohmann::json::array());
    for (const auto& gb : before["gates"]) {
      const std::string name = gb["name"];
      const auto g = std::find_if(gates_now.begin(), gates_now.end(),
                                  [&](const nlohmann::json& x) { return x["name"] == name; });
      if (g == gates_now.end()) {
        why = fmt::format("gate {} missing", name);
        return true;
      }
      if (moved((*g)["value"], gb["value"], (*g)["tolerance"], gb["tolerance"], name, why)) {
        return true;
      }
    }
  }
  // validate_baseline has checked the baseline's types; this run's own rows have numbers.
  const auto& dn = now["data"];
  const auto& db = before.contains("data") ? before["data"] : nlohmann::json::object();
  if (dn.contains("value") && db.contains("value") && dn.contains("tolerance") &&
      db.contains("tolerance")) {
    return moved(dn["value"], db["value"], dn["tolerance"], db["tolerance"], "value", why);
  }
  return false;
}

// The fields of a results.json that the comparison reads, with the types it reads them as.
void validate_baseline(const nlohmann::json& b, const std::string& file) {
  const auto bad = [&](const std::string& field, const char* what) {
    return InputError(fmt::format("--baseline: {}: {} {}", file, field, what));
  };
  if (!b.is_object() || !b.contains("claims") || !b["claims"].is_array()) {
    throw bad("claims", "must be an array (is this a fedverify results.json?)");
  }
  for (std::size_t i = 0; i < b["claims"].size(); ++i) {
    const auto& c = b["claims"][i];
    const std::string at = fmt::format("claims[{}]", i);
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string()) {
      throw bad(at + ".id", "must be a string");
    }
    if (!c.contains("rows") || !c["rows"].is_array()) throw bad(at + ".rows", "must be an array");
    for (std::size_t j = 0; j < c["rows"].size(); ++j) {
      const auto& r = c["rows"][j];
      const std::string rat = fmt::format("{}.rows[{}]", at, j);
      if (!r.is_object() || !r.contains("setting") || !r["setting"].is_string()) {
        throw bad(rat + ".setting", "must be a string");
      }
      if (!r.contains("passed") || !r["passed"].is_boolean()) {
        throw bad(rat + ".passed", "must be true or false");
      }
      if (r.contains("data") && !r["data"].is_object())
        throw bad(rat + ".data", "must be an object");
      // The single quantity of rows written before gates: compared when present, so typed.
      if (r.contains("data")) {
        for (const char* field : {"value", "tolerance"}) {
          if (r["data"].contains(field) && !r["data"][field].is_number()) {
            throw bad(rat + ".data." + field, "must be a number");
          }
        }
      }
      if (!r.contains("gates")) continue;  // written before rows had gates
      if (!r["gates"].is_array()) throw bad(rat + ".gates", "must be an array");
      for (std::size_t k = 0; k < r["gates"].size(); ++k) {
        const auto& g = r["gates"][k];
        const std::string gat = fmt::format("{}.gates[{}]", rat, k);
        if (!g.is_object() || !g.contains("name") || !g["name"].is_string()) {
          throw bad(gat + ".name", "must be a string");
        }
        for (const char* field : {"value", "tolerance"}) {
          if (!g.contains(field) || !g[field].is_number()) {
            throw bad(gat + "." + field, "must be a number");
          }
        }
      }
    }
  }
}

// Where a results.json comes from: the run's seed and grid, the fedverify version and the claims
// it ran. Comparing rows across different provenance would compare different experiments.
nlohmann::json provenance(const ReportOptions& o, const std::vector<std::string>& claim_ids) {
  return {{"seed", o.seed},
          {"quick", o.quick},
          {"version", fedverify_version()},
          {"claims", claim_ids}};
}

// The differences in provenance between the baseline and this run, one phrase each; the
// baseline's claims are compared with this run's within the --only glob (a full baseline serves
// a run of some of its claims).
std::vector<std::string> provenance_mismatches(const nlohmann::json& baseline,
                                               const nlohmann::json& now, const std::string& only,
                                               const std::string& file) {
  const auto bad = [&](const std::string& field, const char* what) {
    return InputError(fmt::format("--baseline: {}: {} {}", file, field, what));
  };
  if (!baseline.contains("fedverify") || !baseline["fedverify"].is_object()) {
    throw bad("fedverify", "must be an object (seed, quick, version, claims)");
  }
  const nlohmann::json& b = baseline["fedverify"];
  std::vector<std::string> out;
  if (!b.contains("seed") || !b["seed"].is_number_unsigned()) {
    throw bad("fedverify.seed", "must be an integer in [0, 2^64 - 1]");
  }
  if (b["seed"] != now["seed"]) {
    out.push_back(fmt::format("seed {} (this run: {})", b["seed"].dump(), now["seed"].dump()));
  }
  if (!b.contains("quick") || !b["quick"].is_boolean()) {
    throw bad("fedverify.quick", "must be true or false");
  }
  if (b["quick"] != now["quick"]) {
    out.push_back(fmt::format("quick {} (this run: {})", b["quick"].dump(), now["quick"].dump()));
  }
  if (!b.contains("version") || !b["version"].is_string()) {
    throw bad("fedverify.version", "must be a string (the fedverify version that wrote it)");
  }
  if (b["version"] != now["version"]) {
    out.push_back(fmt::format("version {} (this run: {})",
                              theory::limits::quote_input(b["version"].get<std::string>()),
                              now["version"].get<std::string>()));
  }
  if (!b.contains("claims") || !b["claims"].is_array()) {
    throw bad("fedverify.claims", "must be an array of claim ids");
  }
  std::set<std::string> before, current;
  for (std::size_t i = 0; i < b["claims"].size(); ++i) {
    if (!b["claims"][i].is_string()) {
      throw bad(fmt::format("fedverify.claims[{}]", i), "must be a string");
    }
    const std::string id = b["claims"][i];
    if (fnmatch(only.c_str(), id.c_str(), 0) == 0) before.insert(id);
  }
  for (const auto& id : now["claims"]) current.insert(id.get<std::string>());
  if (before != current) {
    std::string only_now, only_before;
    for (const auto& id : current) {
      if (before.count(id) == 0) only_now += (only_now.empty() ? "" : ", ") + id;
    }
    for (const auto& id : before) {
      if (current.count(id) == 0) {
        only_before += (only_before.empty() ? "" : ", ") + theory::limits::quote_input(id);
      }
    }
    out.push_back(fmt::format("claims (only in the baseline: {}; only in this run: {})",
                              only_before.empty() ? "none" : only_before,
                              only_now.empty() ? "none" : only_now));
  }
  return out;
}

// Draws the figures a claim returned into the staging directory; one that cannot be drawn (no
// gnuplot, or gnuplot failed) is dropped and the claim's note says so.
void draw_figures(const StagedDirectory& staged, const ScratchDirectory& scratch,
                  claims::ClaimResult& result) {
  std::vector<claims::Figure> drawn;
  for (auto& f : result.figures) {
    if (draw_svg(f.plot, staged.staging() / f.file, scratch) && staged.adopt_file(f.file)) {
      drawn.push_back(std::move(f));
    } else {
      result.note += fmt::format("{}Figure {} skipped: gnuplot missing or failed.",
                                 result.note.empty() ? "" : " ", f.file);
    }
  }
  result.figures = std::move(drawn);
}

}  // namespace

const char* fedverify_version() { return FEDVERIFY_VERSION; }

std::vector<const claims::Claim*> select_claims(const std::string& only) {
  std::vector<const claims::Claim*> selected;
  for (const auto& c : claims::catalogue()) {
    // Opt-in claims (a long study) run only when --only names them (ReportOptions::only).
    if (c.opt_in && only == kAllClaims) continue;
    if (fnmatch(only.c_str(), c.id.c_str(), 0) == 0) selected.push_back(&c);
  }
  return selected;
}

int run_report(const ReportOptions& o) {
  ReportContents contents;
  contents.claims = select_claims(o.only);
  if (contents.claims.empty()) {
    // Every rank sees the same bad input; rank 0 says it, the others return its exit code.
    if (o.ranks != nullptr && !o.ranks->root()) return 2;
    throw InputError(
        fmt::format("--only: no claim id matches \"{}\"", theory::limits::quote_input(o.only)));
  }
  const auto& logistic = claims::default_logistic_problems();
  for (const auto& np : claims::default_quadratic_problems()) contents.problems.push_back(&np);
  for (const auto* np : {&logistic.heterogeneous, &logistic.homogeneous, &logistic.large_batch,
                         &logistic.small, &logistic.small_doubled}) {
    contents.problems.push_back(np);
  }
  contents.problems_note =
      "The dynamics and personalised-FL claims build their own small problems (described in "
      "each claim's rows and code: verify/claims/problems/dynamics_problems.cpp, "
      "verify/claims/problems/personalised_problems.cpp); every row's seed is in results.json.";
  contents.detection_power = true;
  return run_report(o, contents);
}

namespace {

// What rank 0 prepares before any claim runs (only rank 0 reads and writes files): the baseline,
// how its provenance differs from this run's, and the staging directory of the output.
// (bugprone-exception-escape: nlohmann::json's moves are not declared noexcept, as in claim.hpp.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Prepared {
  nlohmann::json baseline;
  std::vector<std::string> mismatches;
  std::unique_ptr<StagedDirectory> staged;
  std::unique_ptr<ScratchDirectory> scratch;
};

Prepared prepare(const ReportOptions& o, const ReportContents& contents,
                 const nlohmann::json& run_provenance) {
  Prepared p;
  if (!o.baseline.empty()) {
    std::ifstream in(o.baseline);
    if (!in) throw InputError(fmt::format("--baseline: cannot open {}", o.baseline));
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(fmt::format("--baseline: cannot read {}", o.baseline));
    try {
      p.baseline = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("--baseline: {} is not valid JSON: {}", o.baseline,
                                   theory::limits::quote_input(e.what(), 200)));
    }
    validate_baseline(p.baseline, o.baseline);
  }
  if (contents.claims.empty()) throw InputError("claims: no claim to report");
  if (!p.baseline.is_null()) {
    p.mismatches = provenance_mismatches(p.baseline, run_provenance, o.only, o.baseline);
    if (!p.mismatches.empty() && !o.baseline_mismatch_ok) {
      std::string list;
      for (const auto& m : p.mismatches) list += (list.empty() ? "" : "; ") + m;
      throw InputError(fmt::format(
          "--baseline: {} was made by another run: {}; its rows are not comparable (give "
          "--baseline-mismatch-ok to compare anyway)",
          o.baseline, list));
    }
  }
  // The output directory: everything is written into its staging directory, published at the
  // very end; a failure or a kill before that leaves the old report as it was.
  p.staged = std::make_unique<StagedDirectory>(o.out_dir, "--out");
  p.scratch = std::make_unique<ScratchDirectory>();
  return p;
}

// The predicted seconds of each claim, for assign_units: its time in the baseline when the
// baseline has one, else the mean of the times it has (all equal, i.e. round-robin, when none).
std::vector<double> predicted_seconds(const nlohmann::json& baseline,
                                      const std::vector<const claims::Claim*>& selected) {
  std::vector<double> seconds(selected.size(), std::nan(""));
  double sum = 0;
  int known = 0;
  if (!baseline.is_null()) {
    for (std::size_t i = 0; i < selected.size(); ++i) {
      for (const auto& bc : baseline["claims"]) {
        if (bc["id"] != selected[i]->id || !bc.contains("seconds") || !bc["seconds"].is_number()) {
          continue;
        }
        const double t = bc["seconds"].get<double>();
        if (std::isfinite(t) && t >= 0) seconds[i] = t;
      }
      if (!std::isnan(seconds[i])) {
        sum += seconds[i];
        ++known;
      }
    }
  }
  const double fallback = known > 0 ? sum / known : 1.0;
  for (double& t : seconds) t = std::isnan(t) ? fallback : t;
  return seconds;
}

// Runs the claims `which` of `selected` in report order with the context `ctx`, into `outcomes`.
// The first error stops the run and is returned (the ranks still meet to exchange it).
std::exception_ptr run_claims(const std::vector<const claims::Claim*>& selected,
                              const std::vector<std::size_t>& which, const Ranks& ranks,
                              const claims::Context& ctx,
                              std::vector<claims::ClaimResult>& outcomes) {
  // Progress on a terminal, on rank 0 only (progress.hpp).
  std::optional<ProgressLine> progress;
  if (ranks.root()) progress.emplace("report", "claims", 0.0);
  for (std::size_t k = 0; k < which.size(); ++k) {
    const auto& c = *selected[which[k]];
    if (progress) progress->update(static_cast<long>(k), static_cast<long>(which.size()), c.id);
    try {
      outcomes[which[k]] = claims::run_claim(c, ctx);
    } catch (...) {
      return std::current_exception();
    }
  }
  return nullptr;
}

// Sends every rank's results (and error) to rank 0, which fills `outcomes` with them. Returns
// the error of the lowest rank that had one, on rank 0 (its own exception when it is rank 0's).
std::exception_ptr gather_outcomes(const Ranks& ranks, const std::vector<int>& owner,
                                   std::exception_ptr error,
                                   std::vector<claims::ClaimResult>& outcomes) {
  nlohmann::json mine = {{"results", nlohmann::json::array()}, {"error", nullptr}};
  if (error) {
    mine["error"] = error_to_json(error);
  } else if (!ranks.root()) {
    for (std::size_t i = 0; i < owner.size(); ++i) {
      if (owner[i] == ranks.rank()) {
        mine["results"].push_back({i, claim_result_to_json(outcomes[i])});
      }
    }
  }
  const std::vector<std::string> all = ranks.gather(to_bytes(mine));
  if (!ranks.root() || error) return error;
  for (std::size_t r = 1; r < all.size(); ++r) {
    const nlohmann::json theirs = from_bytes(all[r]);
    if (!theirs["error"].is_null()) return error_from_json(theirs["error"], static_cast<int>(r));
    for (const auto& entry : theirs["results"]) {
      outcomes.at(entry[0].get<std::size_t>()) = claim_result_from_json(entry[1]);
    }
  }
  return nullptr;
}

int publish_report(const ReportOptions& o, const ReportContents& contents,
                   const nlohmann::json& run_provenance, Prepared& prepared,
                   std::vector<claims::ClaimResult>& outcomes);

// The owner of a sweep claim in a report across ranks: every rank runs it.
constexpr int kEveryRank = -1;

}  // namespace

int run_report(const ReportOptions& o, const ReportContents& contents) {
  const Ranks& ranks = o.ranks != nullptr ? *o.ranks : single_process();
  const std::vector<const claims::Claim*>& selected = contents.claims;
  std::vector<std::string> selected_ids;
  selected_ids.reserve(selected.size());
  for (const auto* c : selected) selected_ids.push_back(c->id);
  const nlohmann::json run_provenance = provenance(o, selected_ids);

  // Rank 0 prepares and assigns the claims; a bad input stops every rank (rank 0 says why).
  Prepared prepared;
  nlohmann::json plan;
  std::exception_ptr error;
  if (ranks.root()) {
    try {
      prepared = prepare(o, contents, run_provenance);
      // Sweep claims run on every rank together, their tasks spread over the ranks; the others
      // are assigned whole, and claims that share a computation (Claim::shared_run) to one rank.
      const std::vector<double> seconds = predicted_seconds(prepared.baseline, selected);
      std::vector<std::size_t> whole;
      std::vector<double> cost;
      std::vector<std::string> together;
      for (std::size_t i = 0; i < selected.size(); ++i) {
        if (selected[i]->sweep && ranks.size() > 1) continue;
        whole.push_back(i);
        cost.push_back(seconds[i]);
        together.push_back(selected[i]->shared_run);
      }
      std::vector<int> owner(selected.size(), kEveryRank);
      const std::vector<int> assigned = assign_units(cost, together, ranks.size());
      for (std::size_t k = 0; k < whole.size(); ++k) owner[whole[k]] = assigned[k];
      plan["owner"] = owner;
    } catch (...) {
      error = std::current_exception();
      plan["exit"] = exit_code_of(error);
    }
  }
  if (ranks.size() > 1) plan = from_bytes(ranks.broadcast(to_bytes(plan)));
  if (error) std::rethrow_exception(error);
  if (plan.contains("exit")) return plan["exit"].get<int>();
  const std::vector<int> owner = plan["owner"];

  // The ranks of one machine share its threads (threads never change a number).
  if (o.threads == 0 && ranks.local_size() > 1) {
    omp_set_num_threads(std::max(1, omp_get_max_threads() / ranks.local_size()));
  }
  claims::Context ctx;
  ctx.options = {o.seed, o.quick, o.threads};
  ctx.figures = true;
  std::vector<claims::ClaimResult> outcomes(selected.size());
  // First the sweeps, every rank together (an error there is every rank's), then each rank's own
  // claims; rank 0 then gathers the others' results.
  std::vector<std::size_t> sweeps, own;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (owner[i] == kEveryRank) sweeps.push_back(i);
    if (owner[i] == ranks.rank()) own.push_back(i);
  }
  const RankSpread spread(ranks);
  claims::Context sweep_ctx = ctx;
  sweep_ctx.spread = &spread;
  error = run_claims(selected, sweeps, ranks, sweep_ctx, outcomes);
  if (!error) error = run_claims(selected, own, ranks, ctx, outcomes);
  if (ranks.size() > 1) error = gather_outcomes(ranks, owner, error, outcomes);

  // Rank 0 publishes; every rank returns its exit code.
  int code = 0;
  if (ranks.root()) {
    try {
      if (error) std::rethrow_exception(error);
      code = publish_report(o, contents, run_provenance, prepared, outcomes);
    } catch (...) {
      error = std::current_exception();
      code = exit_code_of(error);
    }
  }
  if (ranks.size() > 1) code = from_bytes(ranks.broadcast(to_bytes(code))).get<int>();
  if (error && ranks.root()) std::rethrow_exception(error);
  return code;
}

namespace {

int publish_report(const ReportOptions& o, const ReportContents& contents,
                   const nlohmann::json& run_provenance, Prepared& prepared,
                   std::vector<claims::ClaimResult>& outcomes) {
  const std::vector<const claims::Claim*>& selected = contents.claims;
  const nlohmann::json& baseline = prepared.baseline;
  const std::vector<std::string>& mismatches = prepared.mismatches;
  StagedDirectory& staged = *prepared.staged;
  for (auto& outcome : outcomes) draw_figures(staged, *prepared.scratch, outcome);
  nlohmann::json results;
  results["fedverify"] = run_provenance;
  results["problems"] = nlohmann::json::object();
  const std::vector<const claims::NamedProblem*>& problems = contents.problems;
  for (const auto* np : problems) {
    results["problems"][np->name] = {{"description", np->description},
                                     {"spec", theory::problem_to_json(*np->problem)}};
  }

  int failures = 0, inconclusive = 0;
  std::vector<std::string> regressions;
  nlohmann::json claims_json = nlohmann::json::array();
  ClassCounts all_classes;
  std::vector<ClassCounts> claim_classes(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto& c = *selected[i];
    const auto& r = outcomes[i];
    if (!r.passed()) ++failures;
    if (claim_verdict(r) == ClaimVerdict::inconclusive) ++inconclusive;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
      nlohmann::json gates = nlohmann::json::array();
      for (const auto& g : row.gates) {
        gates.push_back({{"name", g.name}, {"value", g.value}, {"tolerance", g.tolerance}});
      }
      const claims::VerdictClass cls = claims::verdict_class(row);
      claim_classes[i].add(cls);
      all_classes.add(cls);
      nlohmann::json json_row = {{"setting", row.setting},
                                 {"predicted", row.predicted},
                                 {"measured", row.measured},
                                 {"passed", row.passed},
                                 {"verdict_class", claims::to_string(cls)},
                                 {"margin", number_or_null(row.equivalence.margin)},
                                 {"mde", number_or_null(row.equivalence.mde)},
                                 {"data", row.data},
                                 {"gates", gates}};
      if (row.equivalence.statistical()) {
        json_row["margin_text"] = row.equivalence.margin_text;
        json_row["equivalence_confirmed"] = row.equivalence.confirmed;
        json_row["equivalence_tests"] = row.equivalence.tests;
      }
      if (!row.first_attempt.is_null()) json_row["first_attempt"] = row.first_attempt;
      rows.push_back(json_row);
    }
    claims_json.push_back({{"id", c.id},
                           {"family", c.family},
                           {"statement", c.card.statement},
                           {"formula", c.card.formula},
                           {"theory", c.card.theory_label},
                           {"decision_rule", c.card.decision_rule},
                           {"alpha", c.alpha},
                           {"margin", c.card.margin},
                           {"verdict_classes", claim_classes[i].json()},
                           {"passed", r.passed()},
                           {"verdict", to_string(claim_verdict(r))},
                           {"seconds", r.seconds},
                           {"note", r.note},
                           {"breaks_at", r.breaks_at},  // validity maps: where the theorem stops
                           {"rows", rows}});
    if (!baseline.is_null()) {
      for (const auto& bc : baseline.value("claims", nlohmann::json::array())) {
        if (bc.value("id", "") != c.id) continue;
        const auto& brows = bc["rows"];
        for (const auto& brow : brows) {
          const std::string setting = brow.value("setting", "");
          bool found = false;
          for (const auto& row : rows) {
            if (row["setting"] != setting) continue;
            found = true;
            std::string why;
            if (row_regressed(row, brow, why)) {
              regressions.push_back(fmt::format("{} [{}]: {}", c.id, setting, why));
            }
          }
          // A row the baseline checked but this run did not is a silently dropped check.
          if (!found) regressions.push_back(fmt::format("{} [{}]: row missing", c.id, setting));
        }
      }
    }
  }
  // Likewise a whole claim of the baseline that this run (with the same --only) no longer has.
  if (!baseline.is_null()) {
    for (const auto& bc : baseline.value("claims", nlohmann::json::array())) {
      const std::string id = bc.value("id", "");
      if (fnmatch(o.only.c_str(), id.c_str(), 0) != 0) continue;
      bool present = false;
      for (const auto* c : selected) present = present || c->id == id;
      if (!present) regressions.push_back(fmt::format("{}: claim missing from the catalogue", id));
    }
  }
  results["claims"] = claims_json;
  results["verdict_classes"] = all_classes.json();
  results["regressions"] = regressions;

  // REPORT.md
  std::ostringstream md;
  md << "# fedverify report\n\n";
  md << fmt::format(
      "{} claims checked, {} hold, {} inconclusive, {} fail{}. Seed {}{}.\n\n", selected.size(),
      selected.size() - failures - inconclusive, inconclusive, failures,
      o.baseline.empty()
          ? ""
          : fmt::format(", {} regressions against {}", regressions.size(), o.baseline),
      o.seed, o.quick ? ", quick grid" : "");
  md << fmt::format(
      "Rows: **{} equivalent** (agreement within the declared margin confirmed), **{} not "
      "rejected** (agreement not confirmed at the margin), {} within tolerance (deterministic), "
      "**{} fail**.\n\n",
      all_classes[claims::VerdictClass::equivalent],
      all_classes[claims::VerdictClass::not_rejected],
      all_classes[claims::VerdictClass::within_tolerance],
      all_classes[claims::VerdictClass::fails]);
  md << kFalseAlarmControl;
  if (!mismatches.empty()) {
    md << "**Baseline provenance mismatch** (compared anyway, --baseline-mismatch-ok): the "
          "baseline differs from this run in\n\n";
    for (const auto& m : mismatches) md << "- " << m << "\n";
    md << "\n";
  }
  md << "| claim | setting | predicted | measured | verdict | equivalent / not rejected / "
        "within tol. / fail | breaks at | time |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto& c = *selected[i];
    const auto& r = outcomes[i];
    int held = 0;
    for (const auto& row : r.rows) held += row.passed ? 1 : 0;
    const ClassCounts& k = claim_classes[i];
    md << fmt::format(
        "| [{}](#{}) | {} rows | {} | {}/{} rows pass | {} | {} / {} / {} / {} | {} | "
        "{:.1f} s |\n",
        c.id, c.id, r.rows.size(), escape_cell(c.card.theory_label), held, r.rows.size(),
        verdict(claim_verdict(r)), k[claims::VerdictClass::equivalent],
        k[claims::VerdictClass::not_rejected], k[claims::VerdictClass::within_tolerance],
        k[claims::VerdictClass::fails], escape_cell(r.breaks_at), r.seconds);
  }
  std::string family;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto& c = *selected[i];
    const auto& r = outcomes[i];
    if (c.family != family) {
      family = c.family;
      md << "\n## " << family << "\n";
    }
    md << fmt::format("\n### {}\n<a id=\"{}\"></a>\n\n", c.id, c.id);
    md << fmt::format(
        "**Statement.** {}\n\n**Formula** (THEORY {}): `{}`\n\n**Decision rule.** {}{}\n\n",
        c.card.statement, c.card.theory_label, c.card.formula, c.card.decision_rule,
        c.alpha > 0 ? fmt::format(" (α = {})", c.alpha) : "");
    if (!c.card.margin.empty()) md << "**Equivalence margin.** " << c.card.margin << "\n\n";
    md << fmt::format("**Verdict: {}** ({:.1f} s)\n\n", verdict(claim_verdict(r)), r.seconds);
    if (!r.note.empty()) md << "**Finding.** " << r.note << "\n\n";
    md << "| setting | predicted | measured | verdict | class | margin δ | MDE (power 0.9) |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const auto& row : r.rows) {
      const claims::VerdictClass cls = claims::verdict_class(row);
      md << fmt::format(
          "| {} | {} | {} | {} | {}{} | {} | {} |\n", escape_cell(row.setting),
          escape_cell(row.predicted), escape_cell(row.measured), row_verdict(row),
          claims::to_string(cls),
          row.first_attempt.is_null() ? "" : " (rerun: first attempt failed)",
          row.equivalence.statistical() ? escape_cell(row.equivalence.margin_text) : "—",
          relative_cell(row.equivalence.mde));
    }
    for (const auto& f : r.figures)
      md << fmt::format("\n![{}]({})\n\n*{}*\n", f.caption, f.file, f.caption);
  }
  if (!regressions.empty()) {
    md << "\n## Regressions against the baseline\n\n";
    for (const auto& s : regressions) md << "- " << s << "\n";
  }
  if (!problems.empty()) md << "\n## Problems\n\n";
  for (const auto* np : problems) {
    md << fmt::format("- `{}`: {} (spec in results.json)\n", np->name, np->description);
  }
  if (!contents.problems_note.empty()) md << "\n" << contents.problems_note << "\n";
  if (contents.detection_power) {
    // The detection-power table: committed data (detection_power.hpp), not computed by this run.
    md << detection_power_markdown(committed_detection_power());
    results["detection_power"] = committed_detection_power();
  }
  if (!mismatches.empty()) results["baseline_mismatches"] = mismatches;
  staged.write_file("REPORT.md", md.str());
  staged.write_file("results.json", results.dump(1) + "\n");
  staged.publish();

  fmt::print(stderr,
             "fedverify report: {} of {} claims hold, {} inconclusive, {} fail; {} regressions; "
             "wrote {}/REPORT.md\n",
             selected.size() - failures - inconclusive, selected.size(), inconclusive, failures,
             regressions.size(), o.out_dir);
  return failures == 0 && regressions.empty() ? 0 : 1;
}

}  // namespace

}  // namespace fedverify::reports
