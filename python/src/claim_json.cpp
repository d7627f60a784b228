#include "python/src/claim_json.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace fedverify::python {

namespace {

double number_or_nan(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// One row of a Python claim's result (fedverify/claims.py, Claim._rows):
//   {"setting", "predicted", "measured", "passed", "data", "gates": [[name, value, tol], …],
//    "equivalence": null | {"margin", "margin_text", "confirmed", "mde", "tests"}}.
claims::Row row_from_json(const nlohmann::json& j) {
  claims::Row row;
  row.setting = j.at("setting").get<std::string>();
  row.predicted = j.at("predicted").get<std::string>();
  row.measured = j.at("measured").get<std::string>();
  row.passed = j.at("passed").get<bool>();
  row.data = j.value("data", nlohmann::json::object());
  for (const auto& g : j.value("gates", nlohmann::json::array())) {
    row.gates.push_back({g.at(0).get<std::string>(), g.at(1).get<double>(), g.at(2).get<double>()});
  }
  const nlohmann::json e = j.value("equivalence", nlohmann::json());
  if (e.is_object()) {
    row.equivalence.margin = number_or_nan(e.at("margin"));
    row.equivalence.margin_text = e.value("margin_text", "");
    row.equivalence.confirmed = e.value("confirmed", false);
    row.equivalence.mde = number_or_nan(e.value("mde", nlohmann::json()));
    row.equivalence.tests = e.value("tests", std::vector<std::string>{});
    row.equivalence.budget_multiple = e.value("budget_multiple", 0.0);
  }
  return row;
}

// A figure of a Python claim (fedverify/claims.py, Claim._figure): {"file", "caption", "title",
// "xlabel", "ylabel", "log_x", "log_y", "series": [{"title", "x", "y", "style", "err"?}]}.
claims::Figure figure_from_json(const nlohmann::json& j) {
  claims::Figure f;
  f.file = j.at("file").get<std::string>();
  f.caption = j.at("caption").get<std::string>();
  f.plot.title = j.at("title").get<std::string>();
  f.plot.xlabel = j.at("xlabel").get<std::string>();
  f.plot.ylabel = j.at("ylabel").get<std::string>();
  f.plot.log_x = j.value("log_x", false);
  f.plot.log_y = j.value("log_y", false);
  for (const auto& s : j.at("series")) {
    f.plot.series.emplace_back(
        s.at("title").get<std::string>(), s.at("x").get<std::vector<double>>(),
        s.at("y").get<std::vector<double>>(), s.value("style", std::string("linespoints")),
        s.value("err", std::vector<double>{}));
  }
  return f;
}

}  // namespace

claims::ClaimResult result_from_json(const nlohmann::json& j, bool figures) {
  claims::ClaimResult result;
  for (const auto& r : j.at("rows")) result.rows.push_back(row_from_json(r));
  if (figures) {
    for (const auto& f : j.value("figures", nlohmann::json::array())) {
      result.figures.push_back(figure_from_json(f));
    }
  }
  result.note = j.value("note", "");
  result.breaks_at = j.value("breaks_at", "");
  return result;
}

nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

nlohmann::json result_to_json(const claims::ClaimResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const claims::Row& row : result.rows) {
    nlohmann::json gates = nlohmann::json::array();
    for (const claims::Gate& g : row.gates) gates.push_back({g.name, g.value, g.tolerance});
    nlohmann::json equivalence;
    if (row.equivalence.statistical()) {
      equivalence = {{"margin", row.equivalence.margin},
                     {"margin_text", row.equivalence.margin_text},
                     {"confirmed", row.equivalence.confirmed},
                     {"mde", number_or_null(row.equivalence.mde)},
                     {"tests", row.equivalence.tests},
                     {"budget_multiple", row.equivalence.budget_multiple}};
    }
    rows.push_back({{"setting", row.setting},
                    {"predicted", row.predicted},
                    {"measured", row.measured},
                    {"passed", row.passed},
                    {"data", row.data},
                    {"gates", gates},
                    {"equivalence", equivalence}});
  }
  nlohmann::json figures = nlohmann::json::array();
  for (const claims::Figure& f : result.figures) {
    nlohmann::json series = nlohmann::json::array();
    for (const claims::Series& s : f.plot.series) {
      nlohmann::json one = {{"title", s.title}, {"x", s.x}, {"y", s.y}, {"style", s.style}};
      if (!s.err.empty()) one["err"] = s.err;
      series.push_back(one);
    }
    figures.push_back({{"file", f.file},
                       {"caption", f.caption},
                       {"title", f.plot.title},
                       {"xlabel", f.plot.xlabel},
                       {"ylabel", f.plot.ylabel},
                       {"log_x", f.plot.log_x},
                       {"log_y", f.plot.log_y},
                       {"series", series}});
  }
  return {
      {"rows", rows}, {"note", result.note}, {"breaks_at", result.breaks_at}, {"figures", figures}};
}

}  // namespace fedverify::python
