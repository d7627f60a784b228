#include "reports/report/baseline.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {
namespace {

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

}  // namespace

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

std::vector<std::string> regressions(const nlohmann::json& claims_now,
                                     const nlohmann::json& baseline, const std::string& only) {
  std::vector<std::string> out;
  if (baseline.is_null()) return out;
  for (const auto& c : claims_now) {
    const std::string id = c["id"];
    const nlohmann::json& rows = c["rows"];
    for (const auto& bc : baseline.value("claims", nlohmann::json::array())) {
      if (bc.value("id", "") != id) continue;
      for (const auto& brow : bc["rows"]) {
        const std::string setting = brow.value("setting", "");
        bool found = false;
        for (const auto& row : rows) {
          if (row["setting"] != setting) continue;
          found = true;
          std::string why;
          if (row_regressed(row, brow, why)) {
            out.push_back(fmt::format("{} [{}]: {}", id, setting, why));
          }
        }
        // A row the baseline checked but this run did not is a silently dropped check.
        if (!found) out.push_back(fmt::format("{} [{}]: row missing", id, setting));
      }
    }
  }
  // Likewise a whole claim of the baseline that this run (with the same --only) no longer has.
  for (const auto& bc : baseline.value("claims", nlohmann::json::array())) {
    const std::string id = bc.value("id", "");
    if (fnmatch(only.c_str(), id.c_str(), 0) != 0) continue;
    bool present = false;
    for (const auto& c : claims_now) present = present || c["id"] == id;
    if (!present) out.push_back(fmt::format("{}: claim missing from the catalogue", id));
  }
  return out;
}

}  // namespace fedverify::reports
