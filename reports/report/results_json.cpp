#include "reports/report/results_json.hpp"

#include <cmath>

#include "reports/report/typed_fields.hpp"
#include "reports/report/verdicts.hpp"
#include "theory/problems/problem_io.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::reports {
namespace {

// JSON number or null (NaN / ∞ are not JSON).
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json row_json(const claims::Row& row) {
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& g : row.gates) {
    gates.push_back({{"name", g.name}, {"value", g.value}, {"tolerance", g.tolerance}});
  }
  const SettingFields setting = setting_fields(row.setting);
  nlohmann::json json_row = {{"setting", row.setting},
                             {"setting_labels", setting.labels},
                             {"setting_values", setting.values},
                             {"measured_values", measured_values(row)},
                             {"predicted", row.predicted},
                             {"measured", row.measured},
                             {"passed", row.passed},
                             {"verdict_class", claims::to_string(claims::verdict_class(row))},
                             {"margin", number_or_null(row.equivalence.margin)},
                             {"mde", number_or_null(row.equivalence.mde)},
                             {"data", row.data},
                             {"gates", gates}};
  if (row.equivalence.statistical()) {
    json_row["margin_text"] = row.equivalence.margin_text;
    json_row["equivalence_confirmed"] = row.equivalence.confirmed;
    json_row["equivalence_tests"] = row.equivalence.tests;
    if (row.equivalence.budget_multiple > 1) {
      json_row["budget_multiple_needed"] = row.equivalence.budget_multiple;
    }
  }
  if (!row.first_attempt.is_null()) json_row["first_attempt"] = row.first_attempt;
  return json_row;
}

}  // namespace

nlohmann::json claim_json(const claims::Claim& c, const claims::ClaimResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows) rows.push_back(row_json(row));
  return {{"id", c.id},
          {"family", c.family},
          {"statement", c.card.statement},
          {"formula", c.card.formula},
          {"theory", c.card.theory_label},
          {"decision_rule", c.card.decision_rule},
          {"alpha", c.alpha},
          {"margin", c.card.margin},
          {"verdict_classes", class_counts(r).json()},
          {"passed", r.passed()},
          {"verdict", to_string(claim_verdict(r))},
          {"seconds", r.seconds},
          {"note", r.note},
          {"breaks_at", r.breaks_at},  // validity maps: where the theorem stops
          {"rows", rows}};
}

nlohmann::json results_json(const nlohmann::json& run_provenance, const ReportContents& contents,
                            const std::vector<claims::ClaimResult>& outcomes) {
  nlohmann::json results;
  results["fedverify"] = run_provenance;
  results["problems"] = nlohmann::json::object();
  for (const auto* np : contents.problems) {
    results["problems"][np->name] =
        np->generator.is_null()
            ? nlohmann::json{{"description", np->description},
                             {"spec", theory::problem_to_json(*np->problem)}}
            : nlohmann::json{{"description", np->description}, {"generator", np->generator}};
  }
  nlohmann::json claims_json = nlohmann::json::array();
  ClassCounts all;
  for (std::size_t i = 0; i < contents.claims.size(); ++i) {
    claims_json.push_back(claim_json(*contents.claims[i], outcomes[i]));
    for (const auto& row : outcomes[i].rows) all.add(claims::verdict_class(row));
  }
  results["claims"] = claims_json;
  results["verdict_classes"] = all.json();
  return results;
}

}  // namespace fedverify::reports
