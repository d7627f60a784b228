#include "reports/report/detection_power.hpp"

#include "reports/report/markdown.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace fedverify::reports {

// Defined in the file CMake generates from reports/power/power_table.json (reports/CMakeLists.txt,
// "Detection-power table"): the file's text, or "" when it was absent.
namespace generated {
const char* detection_power_json();
}  // namespace generated

namespace {

// "0.95" for 19 of 20; bold at or above `power` (the detection threshold).
Text rate_text(const nlohmann::json& cell, double power) {
  const int runs = cell.value("runs", 0);
  if (runs <= 0) return Text("·");
  const double rate = static_cast<double>(cell.value("failed", 0)) / runs;
  const std::string text = fmt::format("{:.2f}", rate);
  return rate >= power ? Text().strong(text) : Text(text);
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

Document detection_power_document(const nlohmann::json& t) {
  Document d;
  d.heading(2, Text("Appendix: detection power of the catalogue"), "detection-power");
  if (!readable(t)) {
    d.paragraph(
        Text("No detection-power table is committed (reports/power/power_table.json; regenerate it "
             "with ")
            .code("build/power_table --check --out reports/power/power_table.json")
            .plain(")."));
    return d;
  }
  const nlohmann::json& p = t["provenance"];
  const double power = t.value("power_threshold", 0.9);
  const double control_rate = t.value("control_threshold", 0.1);
  const int first = p.value("first_seed", 0);
  const int seeds = p.value("seeds", 0);
  d.paragraph(
      Text(fmt::format(
               "Known errors are planted into the claims (test-only code in verify/planted, "
               "never linked into fedverify) and each claim is run on {} run seeds ({} … {}, {} "
               "grid). A cell is the fraction of those seeds on which the claim fails, ",
               seeds, first, first + seeds - 1, p.value("grid", std::string("?"))))
          .strong("bold")
          .plain(fmt::format(
              " at ≥ {}; · where the plant does not reach the claim (the claim never asks for "
              "the planted formula or round, so its run would be the correct build's) or "
              "changes none of its rows on the first seed (a perturbed term the claim does not "
              "read). A planted bug is ",
              power))
          .emphasis("detected")
          .plain(fmt::format(
              " by a claim that fails it on ≥ {} of the seeds while failing its control (the "
              "correct build, first row, or the row named as control) on ≤ {}; the last column "
              "names those claims. Graded perturbations and controls are measured, not required "
              "to be detected.",
              power, control_rate)));
  d.paragraph(Text("Data: reports/power/power_table.json, written by ")
                  .code(p.value("command", std::string("?")))
                  .plain(fmt::format(" at commit {}{} on {} ({:.0f} s, --threads {}).",
                                     p.value("commit", std::string("?")),
                                     p.value("dirty", false) ? " (with uncommitted changes)" : "",
                                     p.value("date", std::string("?")), p.value("seconds", 0.0),
                                     p.value("threads", 0))));
  const nlohmann::json& claims = t["claims"];
  Table table;
  table.sortable = true;
  table.header = {Text("planted error"), Text("kind")};
  for (std::size_t i = 0; i < claims.size(); ++i)
    table.header.emplace_back(fmt::format("C{}", i + 1));
  table.header.emplace_back("detected by");
  for (const auto& row : t["rows"]) {
    if (!row.is_object()) continue;
    std::vector<Text> cells = {Text(row.value("name", std::string("?"))),
                               Text(row.value("kind", std::string("?")))};
    const nlohmann::json found = row.value("cells", nlohmann::json::object());
    for (const auto& c : claims) {
      const std::string id = c.value("id", std::string());
      cells.push_back(found.contains(id) ? rate_text(found[id], power) : Text("·"));
    }
    cells.emplace_back(row.value("verdict", std::string()));
    table.rows.push_back(std::move(cells));
  }
  d.table(std::move(table));
  Text legend("Claims: ");
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const std::string id = claims[i].value("id", std::string());
    legend.plain(fmt::format("{}C{} = ", i == 0 ? "" : "; ", i + 1))
        .link(claims[i].value("id", std::string("?")), "#" + id)
        .plain(fmt::format(" (α = {:g}, {:.1f} s a run)", claims[i].value("alpha", 0.0),
                           claims[i].value("seconds_per_run", 0.0)));
  }
  d.paragraph(legend.plain("."));
  d.paragraph(Text("Planted errors:"));
  std::vector<Text> items;
  for (const auto& row : t["rows"]) {
    if (!row.is_object() || row.value("description", std::string()).empty()) continue;
    const std::string control = row.value("control", std::string());
    const std::string note = row.value("note", std::string());
    Text item;
    item.strong(row.value("name", std::string("?")))
        .plain(": " + row.value("description", std::string()) +
               (control.empty() ? "" : fmt::format(" (control: {})", control)));
    if (!note.empty()) item.plain(". ").emphasis(note);
    items.push_back(std::move(item));
  }
  d.list(std::move(items));
  const std::string notes = t.value("notes", std::string());
  if (!notes.empty()) d.paragraph(Text(notes));
  return d;
}

std::string detection_power_markdown(const nlohmann::json& t) {
  return "\n" + render_markdown(detection_power_document(t));
}

}  // namespace fedverify::reports
