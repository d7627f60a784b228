// power_table: the detection-power table of the claim catalogue (issue 13, "power, measured").
//
// For every planted error of verify/power/plants.hpp (formula errors, graded perturbations,
// sampler bugs that federated-learning frameworks shipped) and every claim it reaches, the
// fraction of run seeds on which the claim fails; the first row is the correct build (each
// claim's false-alarm rate on the same seeds). Claims run on the quick grid (as in ctest), run
// seeds first … first + seeds − 1 (every row uses the same seeds: paired comparisons).
//
// Reach: the correct build's runs record every first-order prediction a claim asks for and every
// round it simulates; a formula plant reaches a claim when its prediction differs from the real
// one on one of those calls, a sampler plant when the claim simulates an algorithm whose round
// it replaces. A plant that does not reach a claim leaves its run bit-identical to the correct
// build's, so the cell is not run ("·").
//
// Decision (--check, the slow ctest power.table): every asserted plant (the bugs and gross
// formula errors; graded perturbations are measured, not asserted) is detected by some claim:
// failed on ≥ kPower of the seeds while the plant's control (the correct build, or a correct
// variant outside the claims' theory) fails it on ≤ kControlRate. Exit 0 when all are, 1 when a
// plant is undetected (named), 2 on bad flags.
//
// Usage: power_table [--seeds N] [--first-seed S] [--threads T] [--out FILE] [--check]
//                    [--plants REGEX] [--claims REGEX] [--asserted-only] [--smoke]
//        power_table --merge FILE [--merge FILE …] [--out FILE] [--check]
// The committed table (reports/power/power_table.json, printed in REPORT.md's appendix) is
// regenerated with `build/power_table --check --out reports/power/power_table.json`, or one claim
// at a time, resumably, with verify/power/power_table_by_claim.sh (which merges the parts with
// --merge: table.hpp says why that gives the same table).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "reports/report/detection_power.hpp"
#include "verify/claims/claim.hpp"
#include "verify/power/plants.hpp"
#include "verify/power/table.hpp"

namespace fedverify::power {
namespace {

// --smoke (the slow ctest power.table): --check --asserted-only on the claims that take < 2 s a
// run on the quick grid, which detect every asserted plant the whole catalogue detects (the
// committed table, all plants × all claims, takes hours: power_table_by_claim.sh).
constexpr const char* kSmokeClaims =
    "^(quadratic\\.exact-remainder-order|dynamics\\.(linear-speedup-logistic|scaffold-bound-shape|"
    "stationary-gaussian)|logistic\\.fedavg-stochastic-bias|maps\\..*)$";

struct Options {
  int seeds = 20;
  std::uint64_t first_seed = 1;
  int threads = 0;
  std::string out;
  bool check = false;
  bool asserted_only = false;
  std::string plants = ".*";
  std::string claims = ".*";
  std::vector<std::string> merge;  // --merge FILE…: tables to merge instead of a run
  std::string command;
};

[[noreturn]] void bad_flag(const std::string& what) {
  fmt::print(stderr, "power_table: {}\n", what);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  o.command = "build/power_table";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    o.command += " " + flag;
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) bad_flag(flag + ": needs a value");
      o.command += fmt::format(" {}", argv[i + 1]);
      return argv[++i];
    };
    auto integer = [&](long low) -> long {
      const std::string v = value();
      std::size_t used = 0;
      long n = 0;
      try {
        n = std::stol(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || n < low) bad_flag(fmt::format("{}: not an integer ≥ {}", flag, low));
      return n;
    };
    if (flag == "--seeds") {
      o.seeds = static_cast<int>(integer(1));
    } else if (flag == "--first-seed") {
      o.first_seed = static_cast<std::uint64_t>(integer(0));
    } else if (flag == "--threads") {
      o.threads = static_cast<int>(integer(0));
    } else if (flag == "--out") {
      o.out = value();
    } else if (flag == "--check") {
      o.check = true;
    } else if (flag == "--asserted-only") {
      o.asserted_only = true;
    } else if (flag == "--smoke") {
      o.check = true;
      o.asserted_only = true;
      o.claims = kSmokeClaims;
    } else if (flag == "--plants") {
      o.plants = value();
    } else if (flag == "--claims") {
      o.claims = value();
    } else if (flag == "--merge") {
      o.merge.push_back(value());
    } else {
      bad_flag(
          fmt::format("unknown flag {} (see the usage in verify/power/power_table.cpp)", flag));
    }
  }
  for (const std::string* re : {&o.plants, &o.claims}) {
    try {
      std::regex check(*re);
    } catch (const std::regex_error&) {
      bad_flag(
          fmt::format("{}: not a regular expression", re == &o.plants ? "--plants" : "--claims"));
    }
  }
  return o;
}

bool same(const theory::FirstOrderMoments& a, const theory::FirstOrderMoments& b) {
  return a.mean == b.mean && a.cov == b.cov && a.bias_heterogeneity == b.bias_heterogeneity &&
         a.bias_stochastic == b.bias_stochastic;
}

// What the correct build's runs of one claim asked for: which formula plants changed one of its
// predictions, which algorithms it simulated.
struct Reach {
  std::mutex mutex;  // claims may ask from OpenMP threads
  std::set<std::size_t> formula_plants;
  std::set<std::string> algorithms;
};

// Every row of a result (what the report prints and records), to tell whether a plant changed
// anything.
nlohmann::json rows_json(const claims::ClaimResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const claims::Row& row : r.rows) {
    rows.push_back({row.setting, row.predicted, row.measured, row.passed, row.data});
  }
  return rows;
}

// Runs `claim` as the report does (claims::run_claim: a failed statistical row is rerun once at
// an independent seed) and counts it in `cell`; returns its rows (null when it threw).
nlohmann::json run_counted(const claims::Claim& claim, const claims::Context& ctx, Cell& cell) {
  const auto t0 = std::chrono::steady_clock::now();
  bool passed = false;
  nlohmann::json rows;
  try {
    const claims::ClaimResult r = claims::run_claim(claim, ctx);  // with the report's rerun
    passed = r.passed();
    rows = rows_json(r);
  } catch (const std::exception& e) {
    ++cell.errors;
    fmt::print(stderr, "    {} threw: {}\n", claim.id, e.what());
  }
  cell.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++cell.runs;
  cell.failed += passed ? 0 : 1;
  return rows;
}

std::string shell_line(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// The run's provenance, taken when it starts (the tree may change while it runs); "seconds" is
// filled in at the end.
nlohmann::json provenance(const Options& o) {
  const std::string git = fmt::format("git -C '{}' ", FEDVERIFY_SOURCE_DIR);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &utc);
  const std::string commit = shell_line(git + "rev-parse --short=12 HEAD 2>/dev/null");
  return {
      {"date", date},
      {"commit", commit.empty() ? "unknown" : commit},
      {"dirty", !shell_line(git + "status --porcelain --untracked-files=no 2>/dev/null").empty()},
      {"command", o.command},
      {"first_seed", o.first_seed},
      {"seeds", o.seeds},
      {"grid", "quick"},
      {"threads", o.threads},
      {"seconds", 0.0}};
}

// Prints the table's markdown, writes --out, and with --check names the undetected plants.
int finish(const Table& table, const Options& o) {
  std::cout << reports::detection_power_markdown(table.json);
  if (!o.out.empty()) {
    std::ofstream out(o.out);
    out << table.json.dump(1) << "\n";
    if (!out) {
      fmt::print(stderr, "power_table: --out: cannot write {}\n", o.out);
      return 2;
    }
  }
  if (o.check && !table.undetected.empty()) {
    for (const auto& name : table.undetected) {
      fmt::print(stderr,
                 "power_table: UNDETECTED: {} (no claim fails it on ≥ {} of the seeds while "
                 "failing its control on ≤ {})\n",
                 name, kPower, kControlRate);
    }
    return 1;
  }
  return 0;
}

// --merge: tables measured on disjoint sets of claims (e.g. one claim per run, so that a long
// regeneration can be resumed) as one table, columns in catalogue order.
int merge(const Options& o) {
  std::vector<nlohmann::json> parts;
  for (const std::string& file : o.merge) {
    std::ifstream in(file);
    if (!in) bad_flag(fmt::format("--merge: cannot read {}", file));
    try {
      parts.push_back(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
      bad_flag(fmt::format("--merge: {} is not JSON ({})", file, e.what()));
    }
  }
  std::vector<std::string> order;
  for (const auto& c : claims::catalogue()) order.push_back(c.id);
  try {
    // The parts themselves, not their 40-odd file names, say how they were run.
    const std::string folder = std::filesystem::path(o.merge.front()).parent_path().string();
    std::string each = parts.front()
                           .value("provenance", nlohmann::json::object())
                           .value("command", std::string("?"));
    each = std::regex_replace(each, std::regex(R"(--claims \S+)"), "--claims '^<claim>$$'");
    each = std::regex_replace(each, std::regex(R"(--out \S+)"), "--out <part>");
    const std::string command = fmt::format(
        "verify/power/power_table_by_claim.sh: build/power_table --merge of {} parts in {}, each "
        "run as {}",
        parts.size(), folder.empty() ? "." : folder, each);
    const Table table =
        merge_tables(parts, plants(), order, command, provenance(o)["date"].get<std::string>());
    fmt::print(stderr, "power_table: merged {} tables: {} claims\n", parts.size(),
               table.json["claims"].size());
    return finish(table, o);
  } catch (const std::runtime_error& e) {
    bad_flag(fmt::format("--merge: {}", e.what()));
  }
}

int run(const Options& o) {
  if (!o.merge.empty()) return merge(o);
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json started = provenance(o);
  const std::regex plant_re(o.plants), claim_re(o.claims);
  std::vector<Plant> all;
  for (Plant& p : plants()) {
    if (std::regex_search(p.name, plant_re) && (p.asserted || !o.asserted_only))
      all.push_back(std::move(p));
  }
  // A selected plant's control runs too.
  for (const Plant& p : plants()) {
    bool needed = false, present = false;
    for (const Plant& q : all) {
      needed = needed || q.control == p.name;
      present = present || q.name == p.name;
    }
    if (needed && !present) all.insert(all.begin(), p);
  }
  std::vector<const claims::Claim*> catalogue;
  for (const auto& c : claims::catalogue()) {
    if (std::regex_search(c.id, claim_re)) catalogue.push_back(&c);
  }
  auto context = [&](std::uint64_t seed) {
    claims::Context ctx;
    ctx.options.quick = true;
    ctx.options.seed = seed;
    ctx.options.threads = o.threads;
    return ctx;
  };
  auto seed_of = [&](int s) { return o.first_seed + static_cast<std::uint64_t>(s); };

  // The correct build, recording what each claim asks for. Seed 0 first for every claim; the
  // other seeds only for the claims some plant reaches.
  std::map<std::string, Cell> null_cells;
  std::map<std::string, nlohmann::json> null_rows;  // at the first seed
  std::map<std::string, Reach> reach;
  auto run_null = [&](const claims::Claim& claim, std::uint64_t seed) {
    Reach& r = reach[claim.id];
    claims::Context ctx = context(seed);
    ctx.predictor = [&r, &all](const theory::ExpansionCoefficients& k, theory::Algorithm a,
                               const theory::RunSetting& s) {
      theory::FirstOrderMoments real = theory::first_order(k, a, s);
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (!all[i].predictor) continue;
        {
          const std::lock_guard lock(r.mutex);
          if (r.formula_plants.count(i) != 0) continue;
        }
        if (!same(all[i].predictor(k, a, s), real)) {
          const std::lock_guard lock(r.mutex);
          r.formula_plants.insert(i);
        }
      }
      return real;
    };
    ctx.round_for = [&r](theory::Algorithm a) -> std::shared_ptr<const estimators::RoundSampler> {
      const std::lock_guard lock(r.mutex);
      r.algorithms.insert(theory::to_string(a));
      return nullptr;
    };
    nlohmann::json rows = run_counted(claim, ctx, null_cells[claim.id]);
    if (seed == seed_of(0)) null_rows[claim.id] = std::move(rows);
  };
  auto reaches = [&](std::size_t plant, const std::string& id) {
    const Plant& p = all[plant];
    const Reach& r = reach[id];
    if (p.predictor && r.formula_plants.count(plant) != 0) return true;
    for (const theory::Algorithm a : p.algorithms) {
      if (r.algorithms.count(theory::to_string(a)) != 0) return true;
    }
    return false;
  };
  std::vector<const claims::Claim*> table_claims;
  for (const claims::Claim* c : catalogue) {
    run_null(*c, seed_of(0));
    bool reached = false;
    for (std::size_t i = 0; i < all.size(); ++i) reached = reached || reaches(i, c->id);
    fmt::print(stderr, "correct build, {}: {}\n", c->id,
               reached ? "reached by a plant" : "reached by no plant (not in the table)");
    if (reached) table_claims.push_back(c);
  }
  for (const claims::Claim* c : table_claims) {
    for (int s = 1; s < o.seeds; ++s) run_null(*c, seed_of(s));
    const Cell& cell = null_cells[c->id];
    fmt::print(stderr, "correct build, {}: failed {} of {} ({:.1f} s)\n", c->id, cell.failed,
               cell.runs, cell.seconds);
  }

  // Every plant on every claim it reaches.
  std::vector<std::map<std::string, Cell>> cells(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Plant& p = all[i];
    for (const claims::Claim* c : table_claims) {
      if (!reaches(i, c->id)) continue;
      Cell& cell = cells[i][c->id];
      for (int s = 0; s < o.seeds; ++s) {
        claims::Context ctx = context(seed_of(s));
        ctx.predictor = p.predictor;
        ctx.round_for = p.round_for;
        const nlohmann::json rows = run_counted(*c, ctx, cell);
        // A formula plant whose changed predictions the claim does not use (a covariance the
        // claim never reads): its rows equal the correct build's, and so would every seed's
        // (the claims ask for the same predictions whatever the seed).
        if (s == 0 && p.predictor && !rows.is_null() && rows == null_rows[c->id]) {
          cell = Cell{.no_effect = true};
          break;
        }
      }
      fmt::print(stderr, "{}, {}: {}\n", p.name, c->id,
                 cell.no_effect ? "no effect on any row"
                                : fmt::format("failed {} of {} ({:.1f} s)", cell.failed, cell.runs,
                                              cell.seconds));
    }
  }

  Counts counts;
  for (const claims::Claim* c : table_claims) {
    const Cell& n = null_cells[c->id];
    counts.columns.push_back({c->id, c->alpha, n.runs > 0 ? n.seconds / n.runs : 0.0});
  }
  counts.correct = null_cells;
  for (std::size_t i = 0; i < all.size(); ++i) counts.cells[all[i].name] = cells[i];
  started["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Table table = build_table(all, counts, std::move(started));
  fmt::print(stderr, "power_table: {} plants × {} claims, {} seeds, {:.0f} s\n", all.size(),
             table_claims.size(), o.seeds, table.json["provenance"]["seconds"].get<double>());
  return finish(table, o);
}

}  // namespace
}  // namespace fedverify::power

int main(int argc, char** argv) {
  try {
    return fedverify::power::run(fedverify::power::parse(argc, argv));
  } catch (const std::exception& e) {
    fmt::print(stderr, "power_table: {}\n", e.what());
    return 3;
  }
}
