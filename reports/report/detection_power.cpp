#include "reports/report/detection_power.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string>
#include <vector>

namespace fedverify::reports {

// Defined in the file CMake generates from reports/power/power_table.json (CMakeLists.txt,
// "Detection-power table"): the file's text, or "" when it was absent.
namespace generated {
const char* detection_power_json();
}  // namespace generated

namespace {

std::string cell_text(const std::string& s) {
  std::string out;
  for (const char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

// "0.95" for 19 of 20; bold at or above `power` (the detection threshold).
std::string rate_text(const nlohmann::json& cell, double power) {
  const int runs = cell.value("runs", 0);
  if (runs <= 0) return "·";
  const double rate = static_cast<double>(cell.value("failed", 0)) / runs;
  return rate >= power ? fmt::format("**{:.2f}**", rate) : fmt::format("{:.2f}", rate);
}

bool readable(const nlohmann::json& t) {
  return t.is_object() && t.contains("provenance") && t["provenance"].is_object() &&
         t.contains("claims") && t["claims"].is_array() && t.contains("rows") &&
         t["rows"].is_array();
}

}  // namespace

const nlohmann::json& committed_detection_power() {
  static const nlohmann::json table = [] {
    const nlohmann::json parsed =
        nlohmann::json::parse(generated::detection_power_json(), nullptr, false);
    return parsed.is_discarded() ? nlohmann::json() : parsed;
  }();
  return table;
}

std::string detection_power_markdown(const nlohmann::json& t) {
  std::ostringstream md;
  md << "\n## Appendix: detection power of the catalogue\n\n";
  if (!readable(t)) {
    md << "No detection-power table is committed (reports/power/power_table.json; regenerate it "
          "with `build/power_table --check --out reports/power/power_table.json`).\n";
    return md.str();
  }
  const nlohmann::json& p = t["provenance"];
  const double power = t.value("power_threshold", 0.9);
  const double control_rate = t.value("control_threshold", 0.1);
  const int first = p.value("first_seed", 0);
  const int seeds = p.value("seeds", 0);
  md << fmt::format(
      "Known errors are planted into the claims (test-only code in verify/planted, never linked "
      "into fedverify) and each claim is run on {} run seeds ({} … {}, {} grid). A cell is the "
      "fraction of those seeds on which the claim fails, **bold** at ≥ {}; · where the plant "
      "does not reach the claim (the claim never asks for the planted formula or round, so its "
      "run would be the correct build's) or changes none of its rows on the first seed (a "
      "perturbed term the claim does not read). A planted bug is *detected* by a claim that "
      "fails it on ≥ {} of the seeds while failing its control (the correct build, first row, "
      "or the row named as control) on ≤ {}; the last column names those claims. Graded "
      "perturbations and controls are measured, not required to be detected.\n\n",
      seeds, first, first + seeds - 1, p.value("grid", std::string("?")), power, power,
      control_rate);
  md << fmt::format(
      "Data: reports/power/power_table.json, written by `{}` at commit {}{} on {} ({:.0f} s, "
      "--threads {}).\n\n",
      p.value("command", std::string("?")), p.value("commit", std::string("?")),
      p.value("dirty", false) ? " (with uncommitted changes)" : "",
      p.value("date", std::string("?")), p.value("seconds", 0.0), p.value("threads", 0));
  const nlohmann::json& claims = t["claims"];
  md << "| planted error | kind |";
  for (std::size_t i = 0; i < claims.size(); ++i) md << fmt::format(" C{} |", i + 1);
  md << " detected by |\n|---|---|";
  for (std::size_t i = 0; i < claims.size(); ++i) md << "---|";
  md << "---|\n";
  for (const auto& row : t["rows"]) {
    if (!row.is_object()) continue;
    md << fmt::format("| {} | {} |", cell_text(row.value("name", std::string("?"))),
                      row.value("kind", std::string("?")));
    const nlohmann::json cells = row.value("cells", nlohmann::json::object());
    for (const auto& c : claims) {
      const std::string id = c.value("id", std::string());
      md << " " << (cells.contains(id) ? rate_text(cells[id], power) : std::string("·")) << " |";
    }
    md << " " << cell_text(row.value("verdict", std::string())) << " |\n";
  }
  md << "\nClaims: ";
  for (std::size_t i = 0; i < claims.size(); ++i) {
    md << fmt::format("{}C{} = [{}](#{}) (α = {:g}, {:.1f} s a run)", i == 0 ? "" : "; ", i + 1,
                      claims[i].value("id", std::string("?")), claims[i].value("id", std::string()),
                      claims[i].value("alpha", 0.0), claims[i].value("seconds_per_run", 0.0));
  }
  md << ".\n\nPlanted errors:\n\n";
  for (const auto& row : t["rows"]) {
    if (!row.is_object() || row.value("description", std::string()).empty()) continue;
    const std::string control = row.value("control", std::string());
    const std::string note = row.value("note", std::string());
    md << fmt::format("- **{}**: {}{}{}\n", cell_text(row.value("name", std::string("?"))),
                      row.value("description", std::string()),
                      control.empty() ? "" : fmt::format(" (control: {})", control),
                      note.empty() ? "" : fmt::format(". *{}*", note));
  }
  const std::string notes = t.value("notes", std::string());
  if (!notes.empty()) md << "\n" << notes << "\n";
  return md.str();
}

}  // namespace fedverify::reports
