#include "reports/cli/claim_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string_view>
#include <utility>

#include "estimators/simulation/simulate.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

using nlohmann::json;

// At most this many grid points (rows): the product of the grid's lists.
constexpr std::size_t kMaxGridPoints = 1000;

std::string string_field(const json& j, const char* name, const std::string& at) {
  const json& v = theory::json_member(j, name, at);
  if (!v.is_string()) throw InputError(fmt::format("{}{}: expected a string", at, name));
  return v.get<std::string>();
}

double number(const json& j, const std::string& field) {
  if (!j.is_number()) throw InputError(field + ": expected a number");
  return j.get<double>();
}

// The keys a grid may vary, in the order of the product (the last varies fastest).
std::vector<std::string> grid_keys() {
  std::vector<std::string> keys = {"gamma", "local_steps", "participating"};
  for (const std::string_view key : theory::parameter_keys()) keys.emplace_back(key);
  return keys;
}

// The run of one grid point: `o` the options with this point's grid values written in, `from_grid`
// the keys that came from the grid (their errors name "grid.<key>"), `where` the point's entries
// ("grid.gamma[1]", "grid.gamma[1], grid.local_steps[0]").
ClaimGridPoint resolve_point(const json& o, const std::string& algorithm,
                             const std::vector<std::string>& from_grid, const std::string& where,
                             const std::string& at) {
  const auto field = [&](std::string_view key) {
    const std::string k(key);
    const bool grid = std::find(from_grid.begin(), from_grid.end(), k) != from_grid.end();
    return at + (grid ? "grid." : "options.") + k;
  };
  theory::RunSetting step;
  step.gamma = o["gamma"].get<double>();
  theory::PresetValues parameter_values;
  bool server_given = false, client_given = false;
  for (const char* key : {"local_steps", "participating"}) {
    if (!o.contains(key)) continue;
    if (!o[key].is_number_integer()) throw InputError(field(key) + ": expected an integer");
    (std::string_view(key) == "local_steps" ? step.local_steps : step.participating) =
        o[key].get<int>();
  }
  if (o.contains("server")) {
    step.server = theory::parse_optimiser(string_field(o, "server", at + "options."),
                                          theory::OptimiserRole::server);
    server_given = true;
  }
  if (o.contains("client")) {
    step.client = theory::parse_optimiser(string_field(o, "client", at + "options."),
                                          theory::OptimiserRole::client);
    client_given = true;
  }
  for (const std::string_view key : theory::parameter_keys()) {
    const std::string k(key);
    if (!o.contains(k)) continue;
    std::vector<double> values;  // a number, or a list of numbers (a per-client parameter)
    if (o[k].is_array()) {
      for (std::size_t i = 0; i < o[k].size(); ++i) {
        values.push_back(number(o[k][i], fmt::format("{}[{}]", field(k), i)));
      }
    } else {
      values.push_back(number(o[k], field(k)));
    }
    parameter_values.emplace_back(k, std::move(values));
  }
  const theory::FieldNames fields{.parameter = field,
                                  .server = at + "options.server",
                                  .client = at + "options.client",
                                  .algorithm = at + "algorithm",
                                  .algorithm_key = "algorithm"};
  const theory::ResolvedAlgorithm run = theory::resolve_algorithm(
      algorithm, step, parameter_values, server_given, client_given, fields);
  const theory::AlgorithmDescriptor& d = theory::describe(run.algorithm, at + "algorithm");
  if (d.family != theory::AlgorithmFamily::chain || !d.has_closed_forms) {
    throw InputError(
        fmt::format("{}algorithm: {} has no closed forms for claim files", at, d.name()));
  }
  // An option the algorithm does not read is refused, as on the command line (a claim about
  // client sampling checked against fedavg's law would otherwise hold for the wrong reason).
  for (const auto& [key, option] :
       {std::pair{"local_steps", theory::AlgorithmOption::local_steps},
        std::pair{"participating", theory::AlgorithmOption::participating},
        std::pair{"server", theory::AlgorithmOption::server},
        std::pair{"client", theory::AlgorithmOption::client}}) {
    if (o.contains(key)) theory::refuse_unread_option(d, option, field(key), "algorithm");
  }
  try {
    theory::validate(run.algorithm, run.step);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}{} (with options): {}", at, where, e.what()));
  }
  std::string others = fmt::format("H = {}", run.step.local_steps);
  for (const std::string& key : from_grid) {
    if (key != "gamma" && key != "local_steps") {
      others += fmt::format(", {} = {}", key, o[key].dump());
    }
  }
  return {run.algorithm, run.step, fmt::format("γ = {:g}, {}", run.step.gamma, others), others, o};
}

// The grid's points: the Cartesian product of its lists (grid_keys() order) over the options.
std::vector<ClaimGridPoint> expand_grid(const json& grid, const json& options,
                                        const std::string& algorithm, const std::string& at) {
  const std::string gat = at + "grid.";
  if (!grid.is_object()) throw InputError(at + "grid: expected an object of lists");
  const std::vector<std::string> all = grid_keys();
  theory::require_known_fields(grid, std::vector<std::string_view>(all.begin(), all.end()), gat);
  theory::json_member(grid, "gamma", gat);
  std::vector<std::string> keys;
  std::size_t total = 1;
  for (const std::string& key : all) {
    if (!grid.contains(key)) continue;
    const json& v = grid[key];
    if (!v.is_array() || v.empty()) throw InputError(gat + key + ": expected a non-empty list");
    if (options.contains(key)) {
      throw InputError(fmt::format("{}{}: also given in options (give it in one place)", gat, key));
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number())
        throw InputError(fmt::format("{}{}[{}]: expected a number", gat, key, i));
    }
    total = theory::limits::saturating_mul(static_cast<std::int64_t>(total),
                                           static_cast<std::int64_t>(v.size()));
    if (total > kMaxGridPoints) {
      throw InputError(fmt::format("{}: at most {} grid points (the product of its lists)",
                                   at + "grid", kMaxGridPoints));
    }
    keys.push_back(key);
  }
  std::vector<ClaimGridPoint> points;
  std::vector<std::size_t> index(keys.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    json o = options;
    std::string where;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      o[keys[k]] = grid[keys[k]][index[k]];
      where += fmt::format("{}grid.{}[{}]", k == 0 ? "" : ", ", keys[k], index[k]);
    }
    points.push_back(resolve_point(o, algorithm, keys, where, at));
    for (std::size_t k = keys.size(); k-- > 0;) {  // the last key varies fastest
      if (++index[k] < grid[keys[k]].size()) break;
      index[k] = 0;
    }
  }
  return points;
}

}  // namespace

ClaimFile parse_claim_file(const std::string& path) {
  const std::string text =
      theory::read_text_file(path, theory::limits::kMaxProblemFileBytes, "claim file");
  const json j = theory::parse_json_text(text, path);
  const std::string at = path + ": ";
  if (!j.is_object()) throw InputError(at + "expected a JSON object at top level");
  theory::require_known_fields(j,
                               {"id", "statement", "problem", "algorithm", "options", "grid",
                                "predicted", "measured", "decision"},
                               at);
  ClaimFile c;
  c.path = path;
  c.id = string_field(j, "id", at);
  if (!std::regex_match(c.id, std::regex("[a-z0-9][a-z0-9._-]{0,63}"))) {
    throw InputError(at + "id: expected lower-case letters, digits, '.', '_', '-' (≤ 64)");
  }
  c.statement = string_field(j, "statement", at);
  const json& problem = theory::json_member(j, "problem", at);
  if (problem.is_string()) {
    std::filesystem::path p = problem.get<std::string>();
    if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
    c.problem = theory::load_problem(p.string());
  } else {
    c.problem = theory::parse_problem(problem, path + ": problem");
  }
  // The options: a preset (theory/problems/algorithm_preset.hpp) or an algorithm with parameters
  // of its own (algorithm_parameter.hpp) is resolved with them, at every grid point.
  json options = json::object();
  if (j.contains("options")) {
    options = j["options"];
    if (!options.is_object()) throw InputError(at + "options: expected an object");
    std::vector<std::string_view> known = {"local_steps", "server", "client", "participating"};
    for (const std::string_view key : theory::parameter_keys()) known.push_back(key);
    theory::require_known_fields(options, known, at + "options.");
  }
  c.algorithm_name = string_field(j, "algorithm", at);
  if (const theory::AlgorithmDescriptor* d = theory::find_algorithm(c.algorithm_name);
      d != nullptr && (d->family != theory::AlgorithmFamily::chain || !d->has_closed_forms)) {
    throw InputError(
        fmt::format("{}algorithm: {} has no closed forms for claim files", at, d->name()));
  }
  c.points = expand_grid(theory::json_member(j, "grid", at), options, c.algorithm_name, at);
  const json& pred = theory::json_member(j, "predicted", at);
  const std::string pat = at + "predicted.";
  theory::require_known_fields(pred, {"quantity", "source", "values", "formula"}, pat);
  const std::string q = string_field(pred, "quantity", pat);
  if (q != "mean" && q != "cov") throw InputError(pat + "quantity: expected \"mean\" or \"cov\"");
  c.quantity = q == "mean" ? ClaimQuantity::mean : ClaimQuantity::cov;
  if (pred.contains("formula")) {
    for (const char* other : {"source", "values"}) {
      if (pred.contains(other)) throw InputError(pat + other + ": not with formula (give one)");
    }
    c.formula = std::make_shared<const theory::Formula>(theory::problem_formula(
        string_field(pred, "formula", pat), pat + "formula", *c.problem, theory::quantity_kind(q)));
    c.blocks = std::make_shared<theory::FormulaBlocks>(c.problem);
    c.predicted = ClaimSource::formula;
  } else if (pred.contains("values")) {
    if (pred.contains("source")) throw InputError(pat + "source: not with values");
    const json& v = pred["values"];
    if (!v.is_array() || v.size() != c.points.size()) {
      throw InputError(
          fmt::format("{}values: expected one per grid point ({})", pat, c.points.size()));
    }
    const int dim = c.problem->dim();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string f = fmt::format("{}values[{}]", pat, i);
      if (c.quantity == ClaimQuantity::mean) {
        if (theory::vector_from_json(v[i], f).size() != dim)
          throw InputError(fmt::format("{}: expected {} numbers", f, dim));
      } else {
        const Matrix m = theory::matrix_from_json(v[i], f);
        if (m.rows() != dim || m.cols() != dim)
          throw InputError(fmt::format("{}: expected {}×{}", f, dim, dim));
      }
      c.predicted_values.push_back(v[i]);
    }
    c.predicted = ClaimSource::numbers;
  } else {
    const std::string s = string_field(pred, "source", pat);
    if (s == "first_order") {
      c.predicted = ClaimSource::first_order;
    } else if (s == "exact") {
      c.predicted = ClaimSource::exact;
    } else {
      throw InputError(pat +
                       "source: expected \"first_order\" or \"exact\" (or give values or a "
                       "formula)");
    }
  }
  const json& meas = theory::json_member(j, "measured", at);
  const std::string mat = at + "measured.";
  theory::require_known_fields(meas, {"source", "chains", "rounds", "burn_in"}, mat);
  const std::string ms = string_field(meas, "source", mat);
  if (ms == "exact") {
    c.measured = ClaimSource::exact;
  } else if (ms == "simulate") {
    c.measured = ClaimSource::simulate;
    for (const auto& [name, target] :
         {std::pair{"chains", &c.chains}, std::pair{"rounds", &c.rounds},
          std::pair{"burn_in", &c.burn_in}}) {
      if (meas.contains(name)) {
        if (!meas[name].is_number_integer()) throw InputError(mat + name + ": expected an integer");
        *target = meas[name].get<int>();
      }
    }
    try {
      estimators::validate_run_shape(c.chains, c.rounds, c.burn_in, 0, 0);
    } catch (const InputError& e) {  // its messages name the command line's flags
      std::string message = e.what();
      for (const auto& [flag, key] :
           {std::pair{"--chains", "chains"}, std::pair{"--rounds", "rounds"},
            std::pair{"--burn-in", "burn_in"}}) {
        message = std::regex_replace(message, std::regex(flag), fmt::format("{}{}", mat, key));
      }
      throw InputError(message);
    }
  } else {
    throw InputError(mat + "source: expected \"exact\" or \"simulate\"");
  }
  if ((c.measured == ClaimSource::exact || c.predicted == ClaimSource::exact) &&
      c.problem->kind() != theory::ProblemKind::quadratic) {
    throw InputError(at + "problem: exact moments need a quadratic problem");
  }
  const json& dec = theory::json_member(j, "decision", at);
  const std::string dat = at + "decision.";
  theory::require_known_fields(dec, {"rule", "alpha", "tolerance", "order", "margin", "allowance"},
                               dat);
  const std::string r = string_field(dec, "rule", dat);
  if (dec.contains("alpha")) c.alpha = number(dec["alpha"], dat + "alpha");
  if (!(c.alpha > 0 && c.alpha < 1)) throw InputError(dat + "alpha: expected a number in (0, 1)");
  for (const char* key : {"margin", "allowance"}) {
    if (dec.contains(key) && r != "hotelling" && r != "matrix_agreement") {
      throw InputError(fmt::format(
          "{}{}: only for the statistical rules hotelling and matrix_agreement", dat, key));
    }
  }
  if (r == "tolerance" || r == "remainder_order") {
    if (c.measured != ClaimSource::exact) {
      throw InputError(dat + "rule: " + r +
                       " compares with measured.source exact (a simulation needs hotelling or "
                       "matrix_agreement)");
    }
  }
  if (r == "tolerance") {
    c.rule = ClaimRule::tolerance;
    c.tolerance = number(theory::json_member(dec, "tolerance", dat), dat + "tolerance");
    if (!(c.tolerance >= 0)) throw InputError(dat + "tolerance: expected a number ≥ 0");
  } else if (r == "remainder_order") {
    c.rule = ClaimRule::remainder_order;
    c.order = number(theory::json_member(dec, "order", dat), dat + "order");
    if (!std::isfinite(c.order)) throw InputError(dat + "order: expected a finite number");
    if (c.predicted == ClaimSource::exact) {
      throw InputError(dat +
                       "rule: remainder_order of the exact moments against themselves (give "
                       "predicted.source first_order, values or a formula)");
    }
    std::map<std::string, int> per_setting;  // the γ values of each setting but γ
    for (const ClaimGridPoint& point : c.points) ++per_setting[point.others];
    for (const auto& [others, count] : per_setting) {
      if (count < 3) {
        throw InputError(fmt::format(
            "{}grid.gamma: remainder_order fits a slope over γ and needs at least 3 step sizes "
            "per setting ({} has {})",
            at, others, count));
      }
    }
  } else if (r == "hotelling" || r == "matrix_agreement") {
    c.rule = r == "hotelling" ? ClaimRule::hotelling : ClaimRule::matrix_agreement;
    if (dec.contains("margin")) c.margin = number(dec["margin"], dat + "margin");
    if (!(c.margin > 0 && c.margin < 1)) {
      throw InputError(dat + "margin: expected a number in (0, 1) (relative to max|prediction|)");
    }
    if (dec.contains("allowance")) c.allowance = number(dec["allowance"], dat + "allowance");
    if (!(c.allowance >= 0 && c.allowance < 1)) {
      throw InputError(dat +
                       "allowance: expected a number in [0, 1) (relative to max|prediction|)");
    }
    if (c.measured != ClaimSource::simulate)
      throw InputError(dat + "rule: " + r + " needs measured.source simulate");
    if ((c.rule == ClaimRule::hotelling) != (c.quantity == ClaimQuantity::mean)) {
      throw InputError(dat + "rule: hotelling tests a mean, matrix_agreement a covariance");
    }
  } else {
    throw InputError(dat +
                     "rule: expected \"tolerance\", \"remainder_order\", \"hotelling\" or "
                     "\"matrix_agreement\"");
  }
  return c;
}

}  // namespace fedverify::reports
