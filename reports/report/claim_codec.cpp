#include "reports/report/claim_codec.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

using nlohmann::json;

json row_to_json(const claims::Row& row) {
  json gates = json::array();
  for (const auto& g : row.gates) gates.push_back({g.name, g.value, g.tolerance});
  const claims::Equivalence& e = row.equivalence;
  return {{"setting", row.setting},
          {"predicted", row.predicted},
          {"measured", row.measured},
          {"passed", row.passed},
          {"data", row.data},
          {"gates", gates},
          {"equivalence",
           {{"margin", e.margin},
            {"margin_text", e.margin_text},
            {"confirmed", e.confirmed},
            {"mde", e.mde},
            {"tests", e.tests}}},
          {"first_attempt", row.first_attempt}};
}

claims::Row row_from_json(const json& j) {
  claims::Row row;
  row.setting = j.at("setting").get<std::string>();
  row.predicted = j.at("predicted").get<std::string>();
  row.measured = j.at("measured").get<std::string>();
  row.passed = j.at("passed").get<bool>();
  row.data = j.at("data");
  for (const auto& g : j.at("gates")) {
    row.gates.push_back({g.at(0).get<std::string>(), g.at(1).get<double>(), g.at(2).get<double>()});
  }
  const json& e = j.at("equivalence");
  row.equivalence.margin = e.at("margin").get<double>();
  row.equivalence.margin_text = e.at("margin_text").get<std::string>();
  row.equivalence.confirmed = e.at("confirmed").get<bool>();
  row.equivalence.mde = e.at("mde").get<double>();
  row.equivalence.tests = e.at("tests").get<std::vector<std::string>>();
  row.first_attempt = j.at("first_attempt");
  return row;
}

json plot_to_json(const claims::PlotSpec& p) {
  json series = json::array();
  for (const auto& s : p.series) {
    series.push_back(
        {{"title", s.title}, {"x", s.x}, {"y", s.y}, {"style", s.style}, {"err", s.err}});
  }
  const claims::Heatmap& h = p.heatmap;
  return {{"title", p.title},
          {"xlabel", p.xlabel},
          {"ylabel", p.ylabel},
          {"log_x", p.log_x},
          {"log_y", p.log_y},
          {"equal_axes", p.equal_axes},
          {"series", series},
          {"heatmap",
           {{"x", h.x},
            {"y", h.y},
            {"z", h.z},
            {"zlabel", h.zlabel},
            {"log_z", h.log_z},
            {"classes", h.classes}}}};
}

claims::PlotSpec plot_from_json(const json& j) {
  claims::PlotSpec p;
  p.title = j.at("title").get<std::string>();
  p.xlabel = j.at("xlabel").get<std::string>();
  p.ylabel = j.at("ylabel").get<std::string>();
  p.log_x = j.at("log_x").get<bool>();
  p.log_y = j.at("log_y").get<bool>();
  p.equal_axes = j.at("equal_axes").get<bool>();
  for (const auto& s : j.at("series")) {
    p.series.emplace_back(s.at("title").get<std::string>(), s.at("x").get<std::vector<double>>(),
                          s.at("y").get<std::vector<double>>(), s.at("style").get<std::string>(),
                          s.at("err").get<std::vector<double>>());
  }
  const json& h = j.at("heatmap");
  p.heatmap.x = h.at("x").get<std::vector<double>>();
  p.heatmap.y = h.at("y").get<std::vector<double>>();
  p.heatmap.z = h.at("z").get<std::vector<double>>();
  p.heatmap.zlabel = h.at("zlabel").get<std::string>();
  p.heatmap.log_z = h.at("log_z").get<bool>();
  p.heatmap.classes = h.at("classes").get<std::vector<std::string>>();
  return p;
}

}  // namespace

json claim_result_to_json(const claims::ClaimResult& result) {
  json rows = json::array();
  for (const auto& row : result.rows) rows.push_back(row_to_json(row));
  json figures = json::array();
  for (const auto& f : result.figures) {
    figures.push_back({{"file", f.file}, {"caption", f.caption}, {"plot", plot_to_json(f.plot)}});
  }
  return {{"rows", rows},
          {"figures", figures},
          {"note", result.note},
          {"breaks_at", result.breaks_at},
          {"seconds", result.seconds}};
}

std::string to_bytes(const json& j) {
  const std::vector<std::uint8_t> bytes = json::to_msgpack(j);
  return {bytes.begin(), bytes.end()};
}

json from_bytes(const std::string& bytes) { return json::from_msgpack(bytes); }

claims::ClaimResult claim_result_from_json(const json& j) {
  claims::ClaimResult result;
  for (const auto& row : j.at("rows")) result.rows.push_back(row_from_json(row));
  for (const auto& f : j.at("figures")) {
    result.figures.push_back({f.at("file").get<std::string>(), f.at("caption").get<std::string>(),
                              plot_from_json(f.at("plot"))});
  }
  result.note = j.at("note").get<std::string>();
  result.breaks_at = j.at("breaks_at").get<std::string>();
  result.seconds = j.at("seconds").get<double>();
  return result;
}

int exit_code_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError&) {
    return 2;
  } catch (...) {
    return 3;
  }
}

json error_to_json(const std::exception_ptr& error) {
  std::string message;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "an exception of unknown type";
  }
  return {{"exit", exit_code_of(error)}, {"message", message}};
}

std::exception_ptr error_from_json(const json& error, int rank) {
  const std::string message = error.at("message").get<std::string>();
  if (error.at("exit").get<int>() == 2) return std::make_exception_ptr(InputError(message));
  if (rank == 0) return std::make_exception_ptr(std::runtime_error(message));
  return std::make_exception_ptr(std::runtime_error(fmt::format("rank {}: {}", rank, message)));
}

}  // namespace fedverify::reports
