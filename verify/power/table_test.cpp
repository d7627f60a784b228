// The detection-power table as data (table.hpp): a bug's verdict from its cells and its control's,
// the counts read back from the JSON, and a table measured in parts merged into the table of the
// whole run.
#include "verify/power/table.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace fedverify::power {
namespace {

Plant plant(const std::string& name, PlantKind kind, bool asserted, std::string control = "") {
  Plant p;
  p.name = name;
  p.kind = kind;
  p.asserted = asserted;
  p.control = std::move(control);
  return p;
}

Cell cell(int failed, int runs) { return Cell{.failed = failed, .runs = runs}; }

// Three claims, a bug detected by one, a bug whose only failing claim also fails its control, and
// an asserted formula error that no claim fails often enough.
std::vector<Plant> plants3() {
  return {plant("formula: lost 1/N", PlantKind::formula, true),
          plant("control: sampling", PlantKind::control, false),
          plant("sampler: |S| for N", PlantKind::sampler, true, "control: sampling"),
          plant("sampler: K = H + 1", PlantKind::sampler, true)};
}

Counts counts3() {
  Counts c;
  c.columns = {{"a.one", 0.01, 1.0}, {"b.two", 0.01, 2.0}, {"c.three", 0.001, 0.5}};
  c.correct = {{"a.one", cell(0, 20)}, {"b.two", cell(1, 20)}, {"c.three", cell(3, 20)}};
  c.cells["formula: lost 1/N"] = {{"a.one", cell(20, 20)}, {"c.three", cell(19, 20)}};
  c.cells["control: sampling"] = {{"b.two", cell(20, 20)}};
  c.cells["sampler: |S| for N"] = {{"b.two", cell(20, 20)}};
  c.cells["sampler: K = H + 1"] = {{"a.one", cell(17, 20)}};
  return c;
}

const nlohmann::json& row_named(const nlohmann::json& table, const std::string& name) {
  for (const auto& row : table["rows"]) {
    if (row["name"] == name) return row;
  }
  throw std::runtime_error("no row " + name);
}

TEST(PowerTable, VerdictsComeFromTheCellsAndTheControls) {
  const Table t = build_table(plants3(), counts3(), {{"seeds", 20}});
  // Detected by a.one only: c.three fails it on 95 % but its false-alarm rate 15 % is above 10 %.
  const auto& lost = row_named(t.json, "formula: lost 1/N");
  EXPECT_EQ(lost["verdict"], "C1");
  EXPECT_EQ(lost["detected_by"], nlohmann::json::array({"a.one"}));
  // b.two fails the bug and its control alike: not attributable, so undetected.
  const auto& s_for_n = row_named(t.json, "sampler: |S| for N");
  EXPECT_NE(s_for_n["verdict"].get<std::string>().find("not attributable: C2"), std::string::npos);
  // 17 of 20 is below the 90 % power threshold.
  EXPECT_NE(
      row_named(t.json, "sampler: K = H + 1")["verdict"].get<std::string>().find("UNDETECTED"),
      std::string::npos);
  EXPECT_EQ(t.undetected, (std::vector<std::string>{"sampler: |S| for N", "sampler: K = H + 1"}));
  EXPECT_EQ(row_named(t.json, "control: sampling")["verdict"], "(control)");
}

TEST(PowerTable, DetectingClaimsAreListedInTableOrder) {
  Counts c;
  c.columns = {{"z.last", 0.01, 1.0}, {"a.first", 0.01, 1.0}};
  c.correct = {{"z.last", cell(0, 20)}, {"a.first", cell(0, 20)}};
  c.cells["formula: lost 1/N"] = {{"z.last", cell(20, 20)}, {"a.first", cell(20, 20)}};
  const Table t = build_table({plants3().front()}, c, {{"seeds", 20}});
  const auto& row = row_named(t.json, "formula: lost 1/N");
  EXPECT_EQ(row["verdict"], "C1, C2");
  EXPECT_EQ(row["detected_by"], nlohmann::json::array({"z.last", "a.first"}));
}

TEST(PowerTable, CountsReadBackEqualTheCountsWritten) {
  const Counts in = counts3();
  const Counts out = counts_of(build_table(plants3(), in, {{"seeds", 20}}).json);
  ASSERT_EQ(out.columns.size(), in.columns.size());
  for (std::size_t j = 0; j < in.columns.size(); ++j) {
    EXPECT_EQ(out.columns[j].id, in.columns[j].id);
    EXPECT_EQ(out.columns[j].alpha, in.columns[j].alpha);
    EXPECT_EQ(out.correct.at(in.columns[j].id).failed, in.correct.at(in.columns[j].id).failed);
  }
  for (const auto& [name, cells] : in.cells) {
    for (const auto& [id, c] : cells) {
      EXPECT_EQ(out.cells.at(name).at(id).failed, c.failed) << name << ", " << id;
      EXPECT_EQ(out.cells.at(name).at(id).runs, c.runs) << name << ", " << id;
    }
  }
}

// The counts of one claim, as a run restricted to that claim would record them.
Counts only(const Counts& all, const std::string& id) {
  Counts c;
  for (const Column& col : all.columns) {
    if (col.id == id) c.columns.push_back(col);
  }
  c.correct[id] = all.correct.at(id);
  for (const auto& [name, cells] : all.cells) {
    c.cells[name];  // a part records every plant's row, reached or not
    if (cells.count(id) != 0) c.cells[name][id] = cells.at(id);
  }
  return c;
}

TEST(PowerTable, PartsMergeIntoTheWholeRunsTable) {
  const nlohmann::json provenance = {
      {"seeds", 20}, {"first_seed", 1}, {"grid", "quick"}, {"commit", "abc"}, {"seconds", 10.0}};
  const Counts whole = counts3();
  std::vector<nlohmann::json> parts;
  // Out of catalogue order: the merge puts the columns back in it.
  for (const char* id : {"c.three", "a.one", "b.two"})
    parts.push_back(build_table(plants3(), only(whole, id), provenance).json);
  const Table merged = merge_tables(parts, plants3(), {"a.one", "b.two", "c.three"}, "merge",
                                    "2026-11-28 04:00 UTC");
  const Table direct = build_table(plants3(), whole, provenance);
  EXPECT_EQ(merged.json["claims"], direct.json["claims"]);
  EXPECT_EQ(merged.json["rows"], direct.json["rows"]);
  EXPECT_EQ(merged.undetected, direct.undetected);
  EXPECT_EQ(merged.json["provenance"]["seconds"], 30.0);
  EXPECT_EQ(merged.json["provenance"]["parts"], 3);
  EXPECT_EQ(merged.json["provenance"]["seeds"], 20);
}

TEST(PowerTable, PartsOfOtherSeedsOrSharingAClaimAreRefused) {
  const Counts whole = counts3();
  const nlohmann::json p20 = {{"seeds", 20}, {"first_seed", 1}, {"grid", "quick"}};
  nlohmann::json p10 = p20;
  p10["seeds"] = 10;
  const auto a = build_table(plants3(), only(whole, "a.one"), p20).json;
  const auto b10 = build_table(plants3(), only(whole, "b.two"), p10).json;
  try {
    (void)merge_tables({a, b10}, plants3(), {}, "merge", "today");
    FAIL() << "parts with other seeds were merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("\"seeds\""), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)merge_tables({a, a}, plants3(), {}, "merge", "today"), std::runtime_error);
  EXPECT_THROW((void)counts_of(nlohmann::json{{"schema", "other"}}), std::runtime_error);
  nlohmann::json broken = a;
  broken["rows"][0]["cells"]["a.one"]["failed"] = -1;
  EXPECT_THROW((void)counts_of(broken), std::runtime_error);
}

}  // namespace
}  // namespace fedverify::power
