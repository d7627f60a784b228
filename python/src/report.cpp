// fedverify.report: the report of claims defined in Python (fedverify.Claim), written by the
// command line's writer (reports::run_report with ReportContents) in the same format: REPORT.md
// and results.json, with the claims' figures (SVG). A Python claim reaches the writer as a
// claims::Claim whose run calls back into Python and returns its rows as JSON text (converted here
// into ClaimResult rows), so the confirmation rerun of failed statistical rows (claims::run_claim)
// applies to it unchanged.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "python/src/claim_json.hpp"
#include "python/src/convert.hpp"
#include "python/src/module.hpp"
#include "reports/cli/check_command.hpp"
#include "reports/report/report.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::python {

namespace {

// The claim of a Python dict (fedverify/claims.py, Claim._spec): its card fields and `run`,
// a callable (seed, attempt, quick) → JSON text of the result.
claims::Claim claim_from_python(const py::dict& spec, int position) {
  claims::Claim c;
  c.order = {claims::Section::quadratic_exact, position};
  c.id = spec["id"].cast<std::string>();
  c.family = spec["family"].cast<std::string>();
  c.card.statement = spec["statement"].cast<std::string>();
  c.card.formula = spec["formula"].cast<std::string>();
  c.card.theory_label = spec["theory"].cast<std::string>();
  c.card.setting = spec["setting"].cast<std::string>();
  c.card.decision_rule = spec["decision_rule"].cast<std::string>();
  c.card.margin = spec["margin"].cast<std::string>();
  c.alpha = spec["alpha"].cast<double>();
  const py::object run = spec["run"];
  c.run = [run, id = c.id](const claims::Context& ctx) {
    const std::string text =
        run(ctx.options.seed, ctx.attempt, ctx.options.quick).cast<std::string>();
    try {
      return result_from_json(nlohmann::json::parse(text), ctx.figures);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("claims: {}: malformed result: {}", id, e.what()));
    }
  };
  return c;
}

// Problems listed in the report's "Problems" section: {name: (description, Problem)}.
int report(const py::list& specs, const py::dict& problems, const std::string& out,
           std::uint64_t seed, bool quick, int threads, const std::string& baseline) {
  std::vector<claims::Claim> claim_list;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    claim_list.push_back(claim_from_python(specs[i].cast<py::dict>(), static_cast<int>(i)));
  }
  std::vector<claims::NamedProblem> named;
  for (const auto& [name, value] : problems) {
    const auto pair = value.cast<py::tuple>();
    named.push_back({name.cast<std::string>(), pair[0].cast<std::string>(),
                     pair[1].cast<const PyProblem&>().problem});
  }
  reports::ReportContents contents;
  for (const auto& c : claim_list) contents.claims.push_back(&c);
  for (const auto& np : named) contents.problems.push_back(&np);
  contents.problems_note = "The claims of this report were defined in Python (fedverify.Claim).";
  reports::ReportOptions options;
  options.out_dir = out;
  options.seed = seed;
  options.quick = quick;
  options.threads = threads;
  options.baseline = baseline;
  options.claims_side_by_side = false;  // Python claims call back into the interpreter
  return reports::run_report(options, contents);
}

// fedverify.check: `fedverify check PATH` in-process (reports/cli/check_command.hpp), the same
// claim file parser and report writer; returns its exit code (0 holds, 1 fails).
int run_check(const std::string& path, const std::string& out, std::uint64_t seed, int threads) {
  reports::ReportOptions options;
  options.out_dir = out;
  options.seed = seed;
  options.threads = threads;
  return reports::run_check(path, options);
}

}  // namespace

void bind_report(py::module_& m) {
  m.def("report", &report);
  m.def("run_check", &run_check, py::arg("path"), py::arg("out"), py::arg("seed"),
        py::arg("threads"));
}

}  // namespace fedverify::python
