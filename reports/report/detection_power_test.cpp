// reports/report/detection_power: the appendix printed from the committed detection-power table.
// Statements: a table renders as one markdown row per plant and one column per claim, a rate at
// or above the threshold in bold, an unreached claim as ·; a table without its fields (or none)
// renders as a paragraph saying so; the committed file, when there is one, is valid and complete
// enough to render (CMake embedded it at configure time).
#include "reports/report/detection_power.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace fedverify::reports {
namespace {

nlohmann::json small_table() {
  return {
      {"power_threshold", 0.9},
      {"control_threshold", 0.1},
      {"provenance",
       {{"date", "2026-01-01 00:00 UTC"},
        {"commit", "abc"},
        {"dirty", false},
        {"command", "build/power_table --seeds 20"},
        {"first_seed", 1},
        {"seeds", 20},
        {"grid", "quick"},
        {"threads", 0},
        {"seconds", 12.0}}},
      {"claims",
       {{{"id", "a.one"}, {"alpha", 0.01}, {"seconds_per_run", 1.0}},
        {{"id", "b.two"}, {"alpha", 0.0}, {"seconds_per_run", 0.1}}}},
      {"rows",
       {{{"name", "none"},
         {"kind", "none"},
         {"verdict", "—"},
         {"cells",
          {{"a.one", {{"failed", 0}, {"runs", 20}}}, {"b.two", {{"failed", 0}, {"runs", 20}}}}}},
        {{"name", "bug | x"},
         {"kind", "sampler"},
         {"description", "a bug"},
         {"verdict", "C1"},
         {"cells", {{"a.one", {{"failed", 19}, {"runs", 20}}}}}}}}};
}

TEST(DetectionPower, RendersOneRowPerPlantAndOneColumnPerClaim) {
  const std::string md = detection_power_markdown(small_table());
  EXPECT_NE(md.find("## Appendix: detection power"), std::string::npos);
  EXPECT_NE(md.find("| planted error | kind | C1 | C2 | detected by |"), std::string::npos);
  EXPECT_NE(md.find("| none | none | 0.00 | 0.00 | — |"), std::string::npos);
  // 19 of 20 = 0.95 ≥ 0.9 in bold; b.two not reached; the | of the name escaped.
  EXPECT_NE(md.find("| bug \\| x | sampler | **0.95** | · | C1 |"), std::string::npos);
  EXPECT_NE(md.find("C1 = [a.one](#a.one)"), std::string::npos);
  EXPECT_NE(md.find("20 run seeds (1 … 20, quick grid)"), std::string::npos);
  EXPECT_NE(md.find("`build/power_table --seeds 20` at commit abc"), std::string::npos);
}

TEST(DetectionPower, AnUnreadableTableSaysSo) {
  for (const nlohmann::json& t : {nlohmann::json(), nlohmann::json{{"rows", 3}}}) {
    const std::string md = detection_power_markdown(t);
    EXPECT_NE(md.find("No detection-power table is committed"), std::string::npos);
  }
}

TEST(DetectionPower, TheCommittedTableRenders) {
  // The table is committed (the report's appendix prints it): its absence is a failure.
  ASSERT_TRUE(std::filesystem::exists(std::filesystem::path(FEDVERIFY_SOURCE_DIR) /
                                      "reports/power/power_table.json"));
  const std::string md = detection_power_markdown(committed_detection_power());
  EXPECT_EQ(md.find("No detection-power table is committed"), std::string::npos);
  EXPECT_NE(md.find("none (correct build"), std::string::npos);
}

}  // namespace
}  // namespace fedverify::reports
