#include "reports/report/report.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "reports/report/baseline.hpp"
#include "reports/report/claim_codec.hpp"
#include "reports/report/claim_pool.hpp"
#include "reports/report/detection_power.hpp"
#include "reports/report/figures.hpp"
#include "reports/report/html.hpp"
#include "reports/report/markdown.hpp"
#include "reports/report/progress.hpp"
#include "reports/report/rank_spread.hpp"
#include "reports/report/ranks.hpp"
#include "reports/report/report_document.hpp"
#include "reports/report/results_json.hpp"
#include "reports/report/staged_directory.hpp"
#include "reports/report/thread_limit.hpp"
#include "reports/report/verdicts.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::reports {
namespace {

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
  contents.problems.push_back(&claims::research_logistic_problems().breast_cancer);
  const auto& linear_sa = claims::default_linear_sa_problems();
  for (const auto* np : {&linear_sa.garnet_td, &linear_sa.diabetes})
    contents.problems.push_back(np);
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
// With `workers` > 1 (one process, --threads 0 on a machine of several cores) whole claims run
// side by side (claim_pool.hpp), the costliest first by `seconds` (predicted per selected claim).
std::exception_ptr run_claims(const std::vector<const claims::Claim*>& selected,
                              const std::vector<std::size_t>& which, const Ranks& ranks,
                              const claims::Context& ctx, int workers,
                              const std::vector<double>& seconds,
                              std::vector<claims::ClaimResult>& outcomes) {
  // Progress on a terminal, on rank 0 only (progress.hpp).
  std::optional<ProgressLine> progress;
  if (ranks.root()) progress.emplace("report", "claims", 0.0);
  if (workers > 1 && which.size() > 1) {
    std::vector<double> cost;
    cost.reserve(which.size());
    for (const std::size_t i : which) cost.push_back(i < seconds.size() ? seconds[i] : 0.0);
    return run_claims_side_by_side(
        selected, which, cost, ctx, workers,
        [&](long finished, long total, const std::string& id) {
          if (progress) progress->update(finished, total, id);
        },
        outcomes);
  }
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
  std::vector<double> seconds;  // predicted, per selected claim (rank 0)
  if (ranks.root()) {
    try {
      prepared = prepare(o, contents, run_provenance);
      // Sweep claims run on every rank together, their tasks spread over the ranks; the others
      // are assigned whole, and claims that share a computation (Claim::shared_run) to one rank.
      seconds = predicted_seconds(prepared.baseline, selected);
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

  // The ranks of one machine share its threads (threads never change a number). --threads T
  // bounds every parallel region of the run, also those that do not take a team size (the
  // theory layer's structured solves, Eigen's products): with T = 1 a second OpenMP thread spun
  // at ≈ 30 % of a core (linear-sa.scaffold-td-unbiased, 2026-11-28). The process's setting is
  // restored on return (the Python package runs reports inside a longer-lived process).
  const ThreadLimit limit(o.threads > 0 ? o.threads
                          : ranks.local_size() > 1
                              ? std::max(1, omp_get_max_threads() / ranks.local_size())
                              : 0);
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
  // One process with --threads 0: whole claims side by side, one per core (claim_pool.hpp).
  const int workers =
      ranks.size() == 1 && o.threads == 0 && o.claims_side_by_side ? omp_get_max_threads() : 1;
  error = run_claims(selected, sweeps, ranks, sweep_ctx, 1, seconds, outcomes);
  if (!error) error = run_claims(selected, own, ranks, ctx, workers, seconds, outcomes);
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
  StagedDirectory& staged = *prepared.staged;
  for (auto& outcome : outcomes) draw_figures(staged, *prepared.scratch, outcome);
  nlohmann::json results = results_json(run_provenance, contents, outcomes);
  const std::vector<std::string> regressed =
      regressions(results["claims"], prepared.baseline, o.only);
  results["regressions"] = regressed;
  if (contents.detection_power) results["detection_power"] = committed_detection_power();
  if (!prepared.mismatches.empty()) results["baseline_mismatches"] = prepared.mismatches;

  // REPORT.md and REPORT.html: one document, two writers (report_document.hpp).
  const Document document =
      report_document({&o, &contents, &outcomes, regressed, prepared.mismatches});
  staged.write_file("REPORT.md", render_markdown(document));
  staged.write_file("REPORT.html",
                    render_html(document, "fedverify report",
                                [&](const std::string& file) { return staged.read_file(file); }));
  staged.write_file("results.json", results.dump(1) + "\n");
  staged.publish();

  std::size_t failures = 0, inconclusive = 0;
  for (const auto& r : outcomes) {
    failures += r.passed() ? 0 : 1;
    inconclusive += claim_verdict(r) == ClaimVerdict::inconclusive ? 1 : 0;
  }
  fmt::print(stderr,
             "fedverify {}: {} of {} claims hold, {} inconclusive, {} fail; {}; wrote "
             "{}/REPORT.md and REPORT.html\n",
             o.command, outcomes.size() - failures - inconclusive, outcomes.size(), inconclusive,
             failures, count_of(regressed.size(), "regression", "regressions"), o.out_dir);
  return failures == 0 && regressed.empty() ? 0 : 1;
}

}  // namespace

}  // namespace fedverify::reports
