// The module fedverify._core (python/CMakeLists.txt). Bad input raises fedverify.InputError, a
// ValueError whose message names the argument as the Python API spells it: the layers' messages
// name command-line flags ("--local-steps: …") and generator fields ("generator.dim: …"), which
// are rewritten to the keyword arguments ("local_steps: …", "d: …").
#include <pybind11/pybind11.h>

#include <regex>
#include <string>

#include "python/src/module.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/formula.hpp"
#include "verify/claims/default_seed.hpp"

namespace {

namespace py = pybind11;

std::string python_names(const std::string& message) {
  static const std::regex generator_dim("generator\\.dim\\b");
  static const std::regex generator("generator\\.");
  static const std::regex flag("--([a-z][a-z0-9]*)-([a-z0-9-]*)");
  static const std::regex short_flag("--([a-z][a-z0-9_]*)");
  std::string out = std::regex_replace(message, generator_dim, "d");
  out = std::regex_replace(out, generator, "");
  // --burn-in → burn_in (twice: at most three words), then --gamma → gamma.
  for (int i = 0; i < 2; ++i) out = std::regex_replace(out, flag, "--$1_$2");
  return std::regex_replace(out, short_flag, "$1");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "fedverify's C++ core; use the package fedverify, not this module";
  static py::exception<fedverify::InputError> input_error(m, "InputError", PyExc_ValueError);
  // pybind11's translator type is void(*)(std::exception_ptr): the parameter must be by value.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const fedverify::theory::FormulaError& e) {  // the formula and a caret follow
      PyErr_SetString(input_error.ptr(), (python_names(e.what()) + "\n" + e.display()).c_str());
    } catch (const fedverify::InputError& e) {
      PyErr_SetString(input_error.ptr(), python_names(e.what()).c_str());
    }
  });
  // The seed of a claim run without seed= (verify/claims/default_seed.hpp), as the command line's.
  m.attr("DEFAULT_SEED") = fedverify::claims::kDefaultSeed;
  fedverify::python::bind_problems(m);
  fedverify::python::bind_runs(m);
  fedverify::python::bind_decide(m);
  fedverify::python::bind_report(m);
  fedverify::python::bind_conformance(m);
}
