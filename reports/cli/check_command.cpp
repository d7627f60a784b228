#include "reports/cli/check_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include <filesystem>
#include <memory>
#include <regex>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/decide.hpp"
#include "reports/report/progress.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::reports {
namespace {

using nlohmann::json;

enum class Quantity { mean, cov };
enum class Source { first_order, exact, numbers, simulate };
enum class Rule { tolerance, hotelling, matrix_agreement };

struct ClaimFile {
  std::string id, statement, path;
  std::shared_ptr<const theory::Problem> problem;
  theory::Algorithm algorithm;
  theory::RunSetting base;  // local steps, optimisers, S; γ from the grid
  std::vector<double> gamma;
  Quantity quantity = Quantity::mean;
  Source predicted = Source::first_order;
  std::vector<json> predicted_values;  // Source::numbers: one per grid point
  Source measured = Source::exact;
  int chains = 256, rounds = 2000, burn_in = 200;
  Rule rule = Rule::tolerance;
  double alpha = 0.01, tolerance = 1e-8;
};

std::string string_field(const json& j, const char* name, const std::string& at) {
  const json& v = theory::json_member(j, name, at);
  if (!v.is_string()) throw InputError(fmt::format("{}{}: expected a string", at, name));
  return v.get<std::string>();
}

double number(const json& j, const std::string& field) {
  if (!j.is_number()) throw InputError(field + ": expected a number");
  return j.get<double>();
}

ClaimFile parse(const std::string& path) {
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
  // The options first: a preset (theory/problems/algorithm_preset.hpp) or an algorithm with
  // parameters of its own (algorithm_parameter.hpp) is resolved with them.
  theory::PresetValues parameter_values;
  bool server_given = false, client_given = false;
  if (j.contains("options")) {
    const json& o = j["options"];
    const std::string oat = at + "options.";
    if (!o.is_object()) throw InputError(at + "options: expected an object");
    std::vector<std::string_view> known = {"local_steps", "server", "client", "participating"};
    for (const std::string_view key : theory::parameter_keys()) known.push_back(key);
    theory::require_known_fields(o, known, oat);
    if (o.contains("local_steps")) {
      if (!o["local_steps"].is_number_integer())
        throw InputError(oat + "local_steps: expected an integer");
      c.base.local_steps = o["local_steps"].get<int>();
    }
    if (o.contains("server")) {
      c.base.server =
          theory::parse_optimiser(string_field(o, "server", oat), theory::OptimiserRole::server);
      server_given = true;
    }
    if (o.contains("client")) {
      c.base.client =
          theory::parse_optimiser(string_field(o, "client", oat), theory::OptimiserRole::client);
      client_given = true;
    }
    if (o.contains("participating")) {
      if (!o["participating"].is_number_integer())
        throw InputError(oat + "participating: expected an integer");
      c.base.participating = o["participating"].get<int>();
    }
    for (const std::string_view key : theory::parameter_keys()) {
      const std::string k(key);
      if (!o.contains(k)) continue;
      std::vector<double> values;  // a number, or a list of numbers (a per-client parameter)
      if (o[k].is_array()) {
        for (std::size_t i = 0; i < o[k].size(); ++i) {
          values.push_back(number(o[k][i], fmt::format("{}{}[{}]", oat, k, i)));
        }
      } else {
        values.push_back(number(o[k], oat + k));
      }
      parameter_values.emplace_back(k, std::move(values));
    }
  }
  const theory::FieldNames fields{
      .parameter = [&](std::string_view key) { return at + "options." + std::string(key); },
      .server = at + "options.server",
      .client = at + "options.client",
      .algorithm = at + "algorithm",
      .algorithm_key = "algorithm"};
  const theory::ResolvedAlgorithm run =
      theory::resolve_algorithm(string_field(j, "algorithm", at), c.base, parameter_values,
                                server_given, client_given, fields);
  c.algorithm = run.algorithm;
  c.base = run.step;
  const theory::AlgorithmDescriptor& d = theory::describe(c.algorithm, at + "algorithm");
  if (d.family != theory::AlgorithmFamily::chain || !d.has_closed_forms) {
    throw InputError(
        fmt::format("{}algorithm: {} has no closed forms for claim files", at, d.name()));
  }
  const json& grid = theory::json_member(j, "grid", at);
  theory::require_known_fields(grid, {"gamma"}, at + "grid.");
  const json& gammas = theory::json_member(grid, "gamma", at + "grid.");
  if (!gammas.is_array() || gammas.empty() || gammas.size() > 1000) {
    throw InputError(at + "grid.gamma: expected 1 to 1000 step sizes");
  }
  for (std::size_t i = 0; i < gammas.size(); ++i) {
    const double g = number(gammas[i], fmt::format("{}grid.gamma[{}]", at, i));
    theory::RunSetting s = c.base;
    s.gamma = g;
    try {
      theory::validate(c.algorithm, s);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}grid.gamma[{}] (with options): {}", at, i, e.what()));
    }
    c.gamma.push_back(g);
  }
  const json& pred = theory::json_member(j, "predicted", at);
  const std::string pat = at + "predicted.";
  theory::require_known_fields(pred, {"quantity", "source", "values"}, pat);
  const std::string q = string_field(pred, "quantity", pat);
  if (q != "mean" && q != "cov") throw InputError(pat + "quantity: expected \"mean\" or \"cov\"");
  c.quantity = q == "mean" ? Quantity::mean : Quantity::cov;
  if (pred.contains("values")) {
    if (pred.contains("source")) throw InputError(pat + "source: not with values");
    const json& v = pred["values"];
    if (!v.is_array() || v.size() != c.gamma.size()) {
      throw InputError(
          fmt::format("{}values: expected one per grid point ({})", pat, c.gamma.size()));
    }
    const int dim = c.problem->dim();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string f = fmt::format("{}values[{}]", pat, i);
      if (c.quantity == Quantity::mean) {
        if (theory::vector_from_json(v[i], f).size() != dim)
          throw InputError(fmt::format("{}: expected {} numbers", f, dim));
      } else {
        const Matrix m = theory::matrix_from_json(v[i], f);
        if (m.rows() != dim || m.cols() != dim)
          throw InputError(fmt::format("{}: expected {}×{}", f, dim, dim));
      }
      c.predicted_values.push_back(v[i]);
    }
    c.predicted = Source::numbers;
  } else {
    const std::string s = string_field(pred, "source", pat);
    if (s == "first_order") {
      c.predicted = Source::first_order;
    } else if (s == "exact") {
      c.predicted = Source::exact;
    } else {
      throw InputError(pat + "source: expected \"first_order\" or \"exact\" (or give values)");
    }
  }
  const json& meas = theory::json_member(j, "measured", at);
  const std::string mat = at + "measured.";
  theory::require_known_fields(meas, {"source", "chains", "rounds", "burn_in"}, mat);
  const std::string ms = string_field(meas, "source", mat);
  if (ms == "exact") {
    c.measured = Source::exact;
  } else if (ms == "simulate") {
    c.measured = Source::simulate;
    for (const auto& [name, target] :
         {std::pair{"chains", &c.chains}, std::pair{"rounds", &c.rounds},
          std::pair{"burn_in", &c.burn_in}}) {
      if (meas.contains(name)) {
        if (!meas[name].is_number_integer()) throw InputError(mat + name + ": expected an integer");
        *target = meas[name].get<int>();
      }
    }
    estimators::validate_run_shape(c.chains, c.rounds, c.burn_in, 0, 0);
  } else {
    throw InputError(mat + "source: expected \"exact\" or \"simulate\"");
  }
  if ((c.measured == Source::exact || c.predicted == Source::exact) &&
      c.problem->kind() != theory::ProblemKind::quadratic) {
    throw InputError(at + "problem: exact moments need a quadratic problem");
  }
  const json& dec = theory::json_member(j, "decision", at);
  const std::string dat = at + "decision.";
  theory::require_known_fields(dec, {"rule", "alpha", "tolerance"}, dat);
  const std::string r = string_field(dec, "rule", dat);
  if (r == "tolerance") {
    c.rule = Rule::tolerance;
    c.tolerance = number(theory::json_member(dec, "tolerance", dat), dat + "tolerance");
    if (!(c.tolerance >= 0)) throw InputError(dat + "tolerance: expected a number ≥ 0");
    if (c.measured == Source::simulate) {
      throw InputError(dat +
                       "rule: a simulation needs a statistical rule (hotelling, matrix_agreement)");
    }
  } else if (r == "hotelling" || r == "matrix_agreement") {
    c.rule = r == "hotelling" ? Rule::hotelling : Rule::matrix_agreement;
    if (c.measured != Source::simulate)
      throw InputError(dat + "rule: " + r + " needs measured.source simulate");
    if ((c.rule == Rule::hotelling) != (c.quantity == Quantity::mean)) {
      throw InputError(dat + "rule: hotelling tests a mean, matrix_agreement a covariance");
    }
    if (dec.contains("alpha")) c.alpha = number(dec["alpha"], dat + "alpha");
    if (!(c.alpha > 0 && c.alpha < 1)) throw InputError(dat + "alpha: expected a number in (0, 1)");
  } else {
    throw InputError(dat + "rule: expected \"tolerance\", \"hotelling\" or \"matrix_agreement\"");
  }
  return c;
}

// The predicted quantity at grid point i, as a matrix (a mean is one column).
Matrix predicted(const ClaimFile& c, std::size_t i, const theory::RunSetting& s) {
  if (c.predicted == Source::numbers) {
    const std::string f = fmt::format("predicted.values[{}]", i);
    return c.quantity == Quantity::mean ? Matrix(theory::vector_from_json(c.predicted_values[i], f))
                                        : theory::matrix_from_json(c.predicted_values[i], f);
  }
  if (c.predicted == Source::exact) {
    const theory::ExactMoments e = theory::exact_moments(
        dynamic_cast<const theory::QuadraticProblem&>(*c.problem), c.algorithm, s);
    return c.quantity == Quantity::mean ? Matrix(e.mean) : e.cov;
  }
  const theory::FirstOrderMoments f =
      theory::first_order(theory::expansion_coefficients(*c.problem), c.algorithm, s);
  return c.quantity == Quantity::mean ? Matrix(f.mean) : f.cov;
}

claims::ClaimResult run(const ClaimFile& c, const claims::Context& ctx) {
  claims::ClaimResult out;
  const double alpha = c.alpha / static_cast<double>(c.gamma.size());  // Bonferroni over rows
  reports::ProgressLine progress("check", "grid points");  // on a terminal (progress.hpp)
  for (std::size_t i = 0; i < c.gamma.size(); ++i) {
    theory::RunSetting s = c.base;
    s.gamma = c.gamma[i];
    progress.update(static_cast<long>(i), static_cast<long>(c.gamma.size()),
                    fmt::format("gamma = {:g}", s.gamma));
    const Matrix p = predicted(c, i, s);
    claims::Row row;
    row.setting = fmt::format("γ = {:g}, H = {}", s.gamma, s.local_steps);
    row.predicted = fmt::format("{} {}", c.quantity == Quantity::mean ? "mean" : "covariance",
                                c.predicted == Source::numbers ? "given"
                                : c.predicted == Source::exact ? "exact"
                                                               : "first order");
    if (c.measured == Source::exact) {
      const theory::ExactMoments e = theory::exact_moments(
          dynamic_cast<const theory::QuadraticProblem&>(*c.problem), c.algorithm, s);
      const Matrix m = c.quantity == Quantity::mean ? Matrix(e.mean) : e.cov;
      // Relative to the exact value, as the Python Claim's rule of the same name (claims.py):
      // max|P − M| ≤ t·max|M|. (An absolute floor would let a covariance of size 1e-3 be 30 % off
      // at t = 0.05.) An exact value of 0 admits only P = 0.
      const double gap = (m - p).cwiseAbs().maxCoeff();
      const double scale = m.cwiseAbs().maxCoeff();
      const double relative = scale > 0 ? gap / scale : (gap > 0 ? HUGE_VAL : 0.0);
      row.measured = fmt::format(
          "exact; max |measured − predicted| = {:.3g}, relative to max |measured| {:.3g} "
          "(tolerance {:g})",
          gap, relative, c.tolerance);
      row.passed = relative <= c.tolerance;
      row.data = {{"gap", gap}, {"relative_error", relative}, {"tolerance", c.tolerance}};
    } else {
      estimators::SimulationSpec spec;
      spec.algorithm = c.algorithm;
      spec.step = s;
      spec.chains = c.chains;
      spec.rounds = c.rounds;
      spec.burn_in = c.burn_in;
      spec.seed = claims::kit::row_seed(ctx, c.id, row.setting);
      spec.threads = ctx.options.threads;
      const estimators::SimulationResult r = estimators::simulate(*c.problem, spec);
      if (r.diverged) {
        row.measured = "diverged: " + r.divergence;
        row.passed = false;
      } else {
        const estimators::Decision d =
            c.rule == Rule::hotelling ? estimators::hotelling_mean_test(r.moments, p.col(0), alpha)
                                      : estimators::matrix_agreement(
                                            r.moments.cov, p, r.moments.cov_mcse, Matrix(), alpha);
        row.measured =
            fmt::format("simulated ({} chains × {} rounds); {}", c.chains, c.rounds, d.description);
        row.passed = d.passed;
        row.data = {{"statistic", d.statistic}, {"threshold", d.threshold}, {"p_value", d.p_value}};
      }
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

claims::Claim load_claim_file(const std::string& path) {
  auto c = std::make_shared<const ClaimFile>(parse(path));
  claims::Claim claim;
  claim.order = {claims::Section::quadratic_exact, 0};
  claim.id = c->id;
  claim.family = "Claim file " + path;
  claim.card.statement = c->statement;
  claim.card.formula = c->predicted == Source::numbers ? "the values given in the file"
                       : c->predicted == Source::exact
                           ? "exact moments (theory::exact_moments)"
                           : "first-order moments (theory::first_order)";
  claim.card.theory_label = "—";
  claim.card.setting =
      fmt::format("{}, {}, {} grid points", path, theory::to_string(c->algorithm), c->gamma.size());
  claim.card.decision_rule =
      c->rule == Rule::tolerance
          ? fmt::format(
                "max |measured − predicted| ≤ {:g}·max |measured| (exact; relative, as "
                "the Python Claim's tolerance)",
                c->tolerance)
          : fmt::format("{} at α = {:g} (Bonferroni over the grid)",
                        c->rule == Rule::hotelling ? "Hotelling T² on batch means"
                                                   : "entrywise agreement with batch-means MCSE",
                        c->alpha);
  claim.alpha = c->rule == Rule::tolerance ? 0.0 : c->alpha;
  claim.run = [c](const claims::Context& ctx) { return run(*c, ctx); };
  return claim;
}

int run_check(const std::string& path, const ReportOptions& options) {
  const claims::Claim claim = load_claim_file(path);
  ReportContents contents;
  contents.claims.push_back(&claim);
  contents.problems_note = "The claim file's problem: " + path;
  return run_report(options, contents);
}

}  // namespace fedverify::reports
