#include "verify/power/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace fedverify::power {
namespace {

constexpr const char* kSchema = "fedverify detection power 1";
constexpr const char* kCorrectRow = "none (correct build: false-alarm rate)";

nlohmann::json cell_json(const Cell& c) {
  return nlohmann::json{
      {"failed", c.failed}, {"runs", c.runs}, {"errors", c.errors}, {"no_effect", c.no_effect}};
}

[[noreturn]] void malformed(const std::string& what) {
  throw std::runtime_error("not a detection-power table: " + what);
}

// A count of the table (an integer ≥ 0 at `field`).
int count_at(const nlohmann::json& cell, const char* field, const std::string& where) {
  if (!cell.contains(field) || !cell[field].is_number_integer() || cell[field].get<int>() < 0)
    malformed(fmt::format("{}: \"{}\" is not a count", where, field));
  return cell[field].get<int>();
}

Cell cell_of(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) malformed(where + " is not an object");
  Cell c;
  c.failed = count_at(j, "failed", where);
  c.runs = count_at(j, "runs", where);
  c.errors = count_at(j, "errors", where);
  c.no_effect = j.value("no_effect", false);
  return c;
}

}  // namespace

Table build_table(const std::vector<Plant>& plants, const Counts& counts,
                  nlohmann::json provenance) {
  Table out;
  nlohmann::json& table = out.json;
  table["schema"] = kSchema;
  table["power_threshold"] = kPower;
  table["control_threshold"] = kControlRate;
  nlohmann::json claims_json = nlohmann::json::array();
  std::map<std::string, std::string> code;  // C1, C2, … in table order (the markdown's columns)
  for (const Column& c : counts.columns) {
    claims_json.push_back(
        {{"id", c.id}, {"alpha", c.alpha}, {"seconds_per_run", c.seconds_per_run}});
    code[c.id] = fmt::format("C{}", code.size() + 1);
  }
  table["claims"] = claims_json;
  auto correct = [&](const std::string& id) {
    const auto it = counts.correct.find(id);
    return it != counts.correct.end() ? it->second : Cell{};
  };
  nlohmann::json rows = nlohmann::json::array();
  {
    nlohmann::json null_row = {{"name", kCorrectRow},
                               {"kind", "none"},
                               {"description", ""},
                               {"control", ""},
                               {"asserted", false},
                               {"verdict", "—"},
                               {"cells", nlohmann::json::object()}};
    for (const Column& c : counts.columns) null_row["cells"][c.id] = cell_json(correct(c.id));
    rows.push_back(null_row);
  }
  static const std::map<std::string, Cell> kNone;
  auto cells_of = [&](const std::string& plant) -> const std::map<std::string, Cell>& {
    const auto it = counts.cells.find(plant);
    return it != counts.cells.end() ? it->second : kNone;
  };
  for (const Plant& p : plants) {
    const std::map<std::string, Cell>& cells = cells_of(p.name);
    const std::map<std::string, Cell>* control = p.control.empty() ? nullptr : &cells_of(p.control);
    // Claims that fail the plant on ≥ kPower of the seeds, and whether each also tells it from
    // its control (fails the control on ≤ kControlRate).
    std::vector<std::string> detected_by, confounded;
    nlohmann::json row_cells = nlohmann::json::object();
    for (const Column& column : counts.columns) {  // table order: "C1, C3", not by id
      const auto it = cells.find(column.id);
      if (it == cells.end()) continue;
      const std::string& id = it->first;
      const Cell& cell = it->second;
      row_cells[id] = cell_json(cell);
      if (cell.no_effect || cell.rate() < kPower) continue;
      const Cell ctl =
          control != nullptr && control->count(id) != 0 ? control->at(id) : correct(id);
      (ctl.rate() <= kControlRate ? detected_by : confounded).push_back(id);
    }
    auto codes = [&](const std::vector<std::string>& ids) {
      std::vector<std::string> names;
      names.reserve(ids.size());
      for (const auto& id : ids) names.push_back(code[id]);
      return fmt::format("{}", fmt::join(names, ", "));
    };
    std::string verdict;
    if (p.kind == PlantKind::control) {
      verdict = "(control)";
    } else if (!detected_by.empty()) {
      verdict = codes(detected_by);
    } else if (!confounded.empty()) {
      verdict = fmt::format("not attributable: {} fail its control too", codes(confounded));
    } else {
      verdict = fmt::format("none at ≥ {}", kPower);
    }
    if (detected_by.empty() && p.asserted) {
      verdict = fmt::format("**UNDETECTED** ({})", verdict);
      out.undetected.push_back(p.name);
    }
    rows.push_back({{"name", p.name},
                    {"kind", to_string(p.kind)},
                    {"description", p.description},
                    {"note", p.note},
                    {"control", p.control},
                    {"asserted", p.asserted},
                    {"detected_by", detected_by},
                    {"verdict", verdict},
                    {"cells", row_cells}});
  }
  table["rows"] = rows;
  table["provenance"] = std::move(provenance);
  return out;
}

Counts counts_of(const nlohmann::json& table) {
  if (!table.is_object() || table.value("schema", std::string()) != kSchema)
    malformed(fmt::format("\"schema\" is not \"{}\"", kSchema));
  if (!table.contains("claims") || !table["claims"].is_array()) malformed("no \"claims\" array");
  if (!table.contains("rows") || !table["rows"].is_array()) malformed("no \"rows\" array");
  Counts counts;
  for (const auto& c : table["claims"]) {
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string())
      malformed("a claim without an \"id\"");
    counts.columns.push_back(
        {c["id"].get<std::string>(), c.value("alpha", 0.0), c.value("seconds_per_run", 0.0)});
  }
  for (const auto& row : table["rows"]) {
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string())
      malformed("a row without a \"name\"");
    const std::string name = row["name"].get<std::string>();
    // A table of claims that no plant reaches has no cells (older tables left the key out).
    const nlohmann::json cells = row.value("cells", nlohmann::json::object());
    if (!cells.is_object()) malformed(fmt::format("row \"{}\": \"cells\" is not an object", name));
    const bool is_correct = row.value("kind", std::string()) == "none";
    for (const auto& [id, cell] : cells.items()) {
      const Cell c = cell_of(cell, fmt::format("row \"{}\", claim {}", name, id));
      if (is_correct) {
        counts.correct[id] = c;
      } else {
        counts.cells[name][id] = c;
      }
    }
  }
  for (const Column& c : counts.columns) {
    if (counts.correct.count(c.id) == 0)
      malformed(fmt::format("claim {} has no correct-build cell", c.id));
  }
  return counts;
}

Table merge_tables(const std::vector<nlohmann::json>& parts, const std::vector<Plant>& plants,
                   const std::vector<std::string>& order, const std::string& command,
                   const std::string& date) {
  if (parts.empty()) throw std::runtime_error("no table to merge");
  Counts all;
  std::set<std::string> commits, rows;  // rows: the plants the parts measured

  bool dirty = false;
  double seconds = 0;
  const nlohmann::json& first = parts.front().value("provenance", nlohmann::json::object());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Counts part = counts_of(parts[i]);
    const nlohmann::json p = parts[i].value("provenance", nlohmann::json::object());
    for (const char* field : {"seeds", "first_seed", "grid"}) {
      if (p.value(field, nlohmann::json()) != first.value(field, nlohmann::json()))
        throw std::runtime_error(fmt::format(
            "part {} ran another \"{}\" ({} against {}): the cells would not be comparable", i + 1,
            field, p.value(field, nlohmann::json()).dump(),
            first.value(field, nlohmann::json()).dump()));
    }
    commits.insert(p.value("commit", std::string("unknown")));
    dirty = dirty || p.value("dirty", false);
    seconds += p.value("seconds", 0.0);
    for (const Column& c : part.columns) {
      if (all.correct.count(c.id) != 0)
        throw std::runtime_error(fmt::format("claim {} is in two parts", c.id));
      all.columns.push_back(c);
      all.correct[c.id] = part.correct.at(c.id);
    }
    for (const auto& [plant, cells] : part.cells) {
      for (const auto& [id, cell] : cells) all.cells[plant][id] = cell;
    }
    for (const auto& row : parts[i]["rows"]) rows.insert(row["name"].get<std::string>());
  }
  std::vector<Plant> measured;
  for (const Plant& p : plants) {
    if (rows.count(p.name) != 0) measured.push_back(p);
  }
  auto rank = [&](const std::string& id) {
    return std::find(order.begin(), order.end(), id) - order.begin();
  };
  std::stable_sort(all.columns.begin(), all.columns.end(),
                   [&](const Column& a, const Column& b) { return rank(a.id) < rank(b.id); });
  nlohmann::json provenance = {{"date", date},
                               {"commit", fmt::format("{}", fmt::join(commits, ", "))},
                               {"dirty", dirty},
                               {"command", command},
                               {"first_seed", first.value("first_seed", 0)},
                               {"seeds", first.value("seeds", 0)},
                               {"grid", first.value("grid", std::string("quick"))},
                               {"threads", first.value("threads", 0)},
                               {"seconds", seconds},
                               {"parts", parts.size()}};
  return build_table(measured, all, std::move(provenance));
}

}  // namespace fedverify::power
