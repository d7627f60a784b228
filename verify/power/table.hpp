// The detection-power table as data (verify/power/power_table.cpp measures it): what a run
// counted, per claim and per plant, and the table built from those counts — the JSON that
// reports/power/power_table.json holds and REPORT.md's appendix prints, with each planted bug's
// verdict (which claims detect it).
//
// The counts of one claim do not depend on the other claims (every cell runs the same seeds, and
// a plant's reach is decided claim by claim), so a table can be measured one claim at a time and
// the parts merged (merge_tables): a run that is cut off loses only the claim it was on.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "verify/power/plants.hpp"

namespace fedverify::power {

// A bug is detected by a claim that fails it on at least 90 % of the seeds (issue 13) …
inline constexpr double kPower = 0.9;
// … while failing its control on at most 10 % (the claims' own α is 0.01: 10 % of 20 seeds is
// two false alarms, far above what a calibrated claim gives, so a claim beyond it does not tell
// the bug from its control).
inline constexpr double kControlRate = 0.1;

// One claim under one plant (or under the correct build) over the run seeds.
struct Cell {
  int failed = 0;
  int runs = 0;
  int errors = 0;          // runs that threw (counted as failed: the report would not say "holds")
  bool no_effect = false;  // reached, but every row equal to the correct build's (not run on)
  double seconds = 0;
  double rate() const { return runs > 0 ? static_cast<double>(failed) / runs : 0.0; }
};

// A claim of the table (a column), in table order.
struct Column {
  std::string id;
  double alpha = 0;
  double seconds_per_run = 0;  // the correct build's
};

// What a run measured: the columns (claims some plant reaches), the correct build's cell of each,
// and each plant's cells on the claims it reaches.
struct Counts {
  std::vector<Column> columns;
  std::map<std::string, Cell> correct;                       // claim id → cell
  std::map<std::string, std::map<std::string, Cell>> cells;  // plant name → claim id → cell
};

// (bugprone-exception-escape: nlohmann::json's moves are not declared noexcept, as in claim.hpp.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Table {
  nlohmann::json json;                  // schema "fedverify detection power 1"
  std::vector<std::string> undetected;  // asserted plants that no claim detects
};

// The table of `counts` for `plants` (table order), with `provenance` (date, commit, command,
// seeds, first_seed, grid, threads, seconds) as given.
Table build_table(const std::vector<Plant>& plants, const Counts& counts,
                  nlohmann::json provenance);

// The counts recorded in a table's JSON (the inverse of build_table's cells). Throws
// std::runtime_error naming the field when the JSON is not such a table.
Counts counts_of(const nlohmann::json& table);

// Tables measured on disjoint sets of claims, as one: their columns in the order of `order` (claim
// ids; columns not in it go last), cells united, provenance {date, command: `command`, commit(s),
// dirty, seeds, first_seed, grid, threads, seconds: the sum, parts: how many}. Throws
// std::runtime_error when the parts ran other seeds or grids, or share a claim.
Table merge_tables(const std::vector<nlohmann::json>& parts, const std::vector<Plant>& plants,
                   const std::vector<std::string>& order, const std::string& command,
                   const std::string& date);

}  // namespace fedverify::power
