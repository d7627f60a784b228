// predict, exact_moments, simulate, formula and the rows of fedverify.Claim (docs/PYTHON.md): the
// functions the chain family's runner calls (reports::chain_prediction, estimators::simulate,
// reports::chain_simulation; reports/runs/chain_runner.cpp), so that the same arguments and seed
// give the same numbers as `fedverify predict|simulate`.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "python/src/claim_json.hpp"
#include "python/src/convert.hpp"
#include "python/src/module.hpp"
#include "reports/cli/claim_rows.hpp"
#include "reports/runs/chain_json.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/formula_blocks.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/optimisers/common.hpp"

namespace fedverify::python {

namespace {

struct RunArguments {
  std::string algo;
  double gamma;
  int local_steps;
  std::string server;
  std::string client;
  int participating;
  theory::PresetValues preset;  // a preset's parameters (mu=…, momentum=…), in the order given
};

// The algorithm and its setting: γ, H and FedOpt's optimisers and S, as --gamma, --local-steps,
// --server, --client and --participating (the claims' helper: a bad spec names server or client),
// a preset resolved to its base algorithm (convert.hpp, chain_run). An option given a value other
// than its default for an algorithm that does not read it is refused, naming it, as the command
// line refuses the flag (theory::refuse_unread_option): it would be silently ignored.
theory::ResolvedAlgorithm run_of(const RunArguments& a) {
  theory::ResolvedAlgorithm run =
      chain_run(a.algo,
                claims::optimisers::fedopt_setting(a.gamma, a.local_steps, a.server, a.client,
                                                   a.participating),
                a.preset, a.server != "sgd", a.client != "sgd");
  const theory::AlgorithmDescriptor& d = theory::describe(run.algorithm, "algo");
  for (const auto& [name, option, given] :
       {std::tuple{"server", theory::AlgorithmOption::server, a.server != "sgd"},
        std::tuple{"client", theory::AlgorithmOption::client, a.client != "sgd"},
        std::tuple{"participating", theory::AlgorithmOption::participating,
                   a.participating != 0}}) {
    if (given) theory::refuse_unread_option(d, option, name, "algo");
  }
  return run;
}

// rounds None: no trajectory; x0 None: x* (predict --rounds T --x0 X, THEORY (T1)).
py::object predict(const PyProblem& p, const RunArguments& a, const py::object& rounds,
                   const py::object& x0) {
  const theory::ResolvedAlgorithm run = run_of(a);
  nlohmann::json out = reports::chain_prediction(*p.problem, run);
  if (!rounds.is_none()) {
    std::optional<Vector> start;
    if (!x0.is_none()) start = vector_arg(x0, "x0");
    reports::add_exact_trajectory(out, *p.problem, run, start, rounds.cast<int>());
  } else if (!x0.is_none()) {
    throw InputError("x0: the start of the exact trajectory, given with rounds=T");
  }
  return to_python(out);
}

py::tuple exact_moments(const PyProblem& p, const RunArguments& a) {
  const theory::ResolvedAlgorithm run = run_of(a);
  const auto* q = dynamic_cast<const theory::QuadraticProblem*>(p.problem.get());
  if (q == nullptr) {
    throw InputError(fmt::format("problem: exact moments need a quadratic problem, got a {} one",
                                 theory::to_string(p.problem->kind())));
  }
  const theory::ExactMoments m = theory::exact_moments(*q, run.algorithm, run.step);
  return py::make_tuple(to_numpy(m.mean), to_numpy(m.cov));
}

// fedverify.formula and the Python Claim's predict="…" (docs/PYTHON.md): a formula over the
// problem's blocks, parsed once (errors naming `field`; `quantity` "mean" or "cov" fixes the kind
// of its value, "" any), evaluated per setting by the claim files' evaluator
// (theory/closed_forms/formula_blocks.hpp) with the problem's coefficients computed once.
class PyFormula {
 public:
  PyFormula(const PyProblem& p, const std::string& text, const std::string& field,
            const std::string& quantity)
      : formula_(theory::problem_formula(text, field, *p.problem,
                                         quantity.empty() ? std::nullopt
                                                          : std::optional<theory::FormulaKind>(
                                                                theory::quantity_kind(quantity)))),
        blocks_(p.problem) {
    if (!quantity.empty() && quantity != "mean" && quantity != "cov") {
      throw InputError(fmt::format("quantity: expected mean or cov, got \"{}\"", quantity));
    }
  }

  // A float, or a NumPy vector (d) or matrix (d×d); `row` names the setting when the value is not
  // finite.
  py::object evaluate(const RunArguments& a, const std::string& row) {
    const theory::ResolvedAlgorithm run = run_of(a);
    const theory::FormulaValue v = blocks_.evaluate(formula_, run.algorithm, run.step, row);
    if (v.kind == theory::FormulaKind::scalar) return py::float_(v.scalar);
    if (v.kind == theory::FormulaKind::vector) return to_numpy(v.vector);
    return to_numpy(v.matrix);
  }

 private:
  theory::Formula formula_;
  theory::FormulaBlocks blocks_;
};

struct SimulateArguments {
  int chains;
  int rounds;
  int burn_in;
  std::uint64_t seed;
  int threads;
  int batch_rounds;
  std::string noise;
  bool trace;
};

estimators::SimulationSpec simulation_spec(const RunArguments& a, const SimulateArguments& s) {
  estimators::SimulationSpec spec;
  const theory::ResolvedAlgorithm run = run_of(a);
  spec.algorithm = run.algorithm;
  spec.step = run.step;
  spec.chains = s.chains;
  spec.rounds = s.rounds;
  spec.burn_in = s.burn_in;
  spec.seed = s.seed;
  spec.threads = s.threads;
  spec.batch_rounds = s.batch_rounds;
  spec.record_trace = s.trace;
  if (s.noise == "shared") {
    spec.coupling = theory::NoiseCoupling::shared;
  } else if (s.noise != "independent") {
    throw InputError(fmt::format("noise: expected independent or shared, got \"{}\"", s.noise));
  }
  return spec;
}

estimators::SimulationResult run(const PyProblem& p, const estimators::SimulationSpec& spec) {
  const py::gil_scoped_release release;  // OpenMP threads; nothing here touches Python
  return estimators::simulate(*p.problem, spec);
}

// The dict of `fedverify simulate` (simulation_to_json and the optimiser fields), and with
// trace=True the recorded states as a (rounds − burn_in) × d × K array under "trace".
// x0 (None: every chain starts at 0): the chains' start, as `simulate --x0` (THEORY (T1)'s curve
// from the same start is predict(rounds=T, x0=…)).
py::object simulate(const PyProblem& p, const RunArguments& a, const SimulateArguments& s,
                    const py::object& x0) {
  estimators::SimulationSpec spec = simulation_spec(a, s);
  if (!x0.is_none()) {
    spec.initial_state = vector_arg(x0, "x0");
    if (spec.initial_state.size() != p.problem->dim()) {
      throw InputError(fmt::format("x0: expected {} numbers (the problem's dimension), got {}",
                                   p.problem->dim(), spec.initial_state.size()));
    }
  }
  const estimators::SimulationResult r = run(p, spec);
  py::dict result = to_python(reports::chain_simulation(*p.problem, spec, r, a.algo));
  if (s.trace) {
    const py::ssize_t d = p.problem->dim(), k = spec.chains;
    py::array_t<double> trace({static_cast<py::ssize_t>(r.trace.size()), d, k});
    auto view = trace.mutable_unchecked<3>();
    for (std::size_t t = 0; t < r.trace.size(); ++t) {
      for (py::ssize_t i = 0; i < d; ++i) {
        for (py::ssize_t c = 0; c < k; ++c)
          view(static_cast<py::ssize_t>(t), i, c) = r.trace[t](i, c);
      }
    }
    result["trace"] = trace;
  }
  return result;
}

// fedverify.Claim's rows (fedverify/claims.py, Claim.run), by the claim engine behind claim files
// (reports/cli/claim_rows.hpp): one ClaimFile from the claim's fields (spec_text, JSON: id,
// statement, measure, rule, alpha, tolerance, order, margin, allowance, chains, rounds, burn_in,
// figure_file, and per grid point its label, its label without γ, its settings and the prediction
// computed in Python) and the grid points' runs. Returns the result's JSON text (claim_json.hpp).
std::string claim_rows(const PyProblem& p, const std::string& spec_text,
                       const std::vector<RunArguments>& runs, std::uint64_t seed, int attempt,
                       int threads) {
  const nlohmann::json spec = nlohmann::json::parse(spec_text);
  reports::ClaimFile c;
  c.id = spec.at("id").get<std::string>();
  c.statement = spec.at("statement").get<std::string>();
  c.problem = p.problem;
  const nlohmann::json& points = spec.at("points");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const theory::ResolvedAlgorithm run = run_of(runs[i]);
    const nlohmann::json& point = points.at(i);
    c.points.push_back({run.algorithm, run.step, point.at("label").get<std::string>(),
                        point.at("others").get<std::string>(), point.at("setting")});
    c.predicted_values.push_back(point.at("predicted"));
  }
  const std::string measure = spec.at("measure").get<std::string>();
  c.quantity =
      measure.ends_with("mean") ? reports::ClaimQuantity::mean : reports::ClaimQuantity::cov;
  c.predicted = reports::ClaimSource::numbers;
  c.measured =
      measure.starts_with("exact") ? reports::ClaimSource::exact : reports::ClaimSource::simulate;
  if (c.measured == reports::ClaimSource::exact &&
      c.problem->kind() != theory::ProblemKind::quadratic) {
    throw InputError("measure: exact moments need a quadratic problem");
  }
  const std::string rule = spec.at("rule").get<std::string>();
  c.rule = rule == "tolerance"         ? reports::ClaimRule::tolerance
           : rule == "remainder_order" ? reports::ClaimRule::remainder_order
           : rule == "hotelling"       ? reports::ClaimRule::hotelling
                                       : reports::ClaimRule::matrix_agreement;
  c.alpha = spec.at("alpha").get<double>();
  c.tolerance = spec.value("tolerance", 0.0);
  c.order = spec.value("order", 0.0);
  c.margin = spec.at("margin").get<double>();
  c.allowance = spec.value("allowance", 0.0);
  c.chains = spec.at("chains").get<int>();
  c.rounds = spec.at("rounds").get<int>();
  c.burn_in = spec.at("burn_in").get<int>();
  c.figure_file = spec.at("figure_file").get<std::string>();
  claims::Context ctx;
  ctx.options.seed = seed;
  ctx.options.threads = threads;
  ctx.attempt = attempt;
  ctx.figures = true;
  return result_to_json(reports::claim_rows(c, ctx)).dump();
}

}  // namespace

void bind_runs(py::module_& m) {
  py::class_<RunArguments>(m, "_RunArguments")
      .def(py::init<std::string, double, int, std::string, std::string, int,
                    theory::PresetValues>());
  py::class_<SimulateArguments>(m, "_SimulateArguments")
      .def(py::init<int, int, int, std::uint64_t, int, int, std::string, bool>());
  py::class_<PyFormula>(m, "_Formula")
      .def(py::init<const PyProblem&, std::string, std::string, std::string>())
      .def("evaluate", &PyFormula::evaluate);
  m.def(
      "formula_blocks",
      [] {
        py::list out;
        for (const theory::FormulaBlock& b : theory::formula_blocks()) {
          const char* kind = b.kind == theory::FormulaKind::scalar   ? "scalar"
                             : b.kind == theory::FormulaKind::vector ? "vector"
                                                                     : "matrix";
          out.append(py::make_tuple(std::string(b.name), kind, std::string(b.meaning),
                                    std::string(b.theory)));
        }
        return out;
      },
      "The names a formula may use: (name, kind, meaning, THEORY label) tuples.");
  m.def("predict", &predict);
  m.def("exact_moments", &exact_moments);
  m.def("simulate", &simulate);
  m.def("claim_rows", &claim_rows);
  m.def(
      "preset_parameter_keys",
      [] {
        std::vector<std::string> keys;
        for (const std::string_view k : theory::preset_parameter_keys()) keys.emplace_back(k);
        return keys;
      },
      "The keyword arguments of the presets (mu, momentum, server_lr, …), sorted.");
  m.def(
      "parameter_keys",
      [] {
        std::vector<std::string> keys;
        for (const std::string_view k : theory::parameter_keys()) keys.emplace_back(k);
        return keys;
      },
      "The keyword arguments of the presets and of the algorithms' own parameters "
      "(client_steps, mu, momentum, …), sorted.");
}

}  // namespace fedverify::python
