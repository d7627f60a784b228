// conformance (docs/PYTHON.md): `fedverify conformance` for an implementation written as a Python
// callable, implementation(oracle, run). The oracle is the command line's (reports/conformance/
// oracle.hpp: gradients from fedverify's streams, iterates recorded), only the transport differs
// (a call instead of JSON lines), so the same implementation and seed give the same verdict and
// numbers as `fedverify conformance --exec` (python/tests/test_conformance.py).
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "python/src/convert.hpp"
#include "python/src/module.hpp"
#include "reports/conformance/conformance.hpp"
#include "reports/conformance/per_model.hpp"
#include "reports/runs/chain_json.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/optimisers/common.hpp"

namespace fedverify::python {
namespace {

using reports::ConformanceOracle;

struct ConformanceArguments {
  std::string algo;
  double gamma;
  int local_steps;
  std::string client;
  std::string server;  // server sgd with its lr, momentum, nesterov (fedopt)
  int participating;
  theory::PresetValues preset;  // a preset's parameters (convert.hpp, chain_run)
  std::uint64_t seed;
  std::optional<int> chains;  // absent: the mode's default (reports::ConformanceSpec, trajectory)
  std::optional<int> rounds;
  int burn_in;
  int one_round_chains;
  double alpha;
  std::string trajectory;  // "" (statistical checks), "float64" or "float32"
  bool per_model;          // one chain per call of the implementation (per_model.hpp)
  double weight_decay;     // λ of every local step (THEORY C1)
};

// "client": an integer, or one per chain.
std::vector<int> clients_arg(const py::handle& value) {
  const auto bad = [&] {
    return py::type_error(
        fmt::format("client: expected an integer or a sequence of integers (one per chain), got {}",
                    std::string(py::str(py::type::of(value).attr("__name__")))));
  };
  const auto index = [&](const py::handle& v) {
    PyObject* i = PyNumber_Index(v.ptr());  // NULL (error set) e.g. for an array of size > 1
    if (i == nullptr) {
      PyErr_Clear();
      throw bad();
    }
    return py::cast<int>(py::reinterpret_steal<py::object>(i));
  };
  if (PySequence_Check(value.ptr()) == 0) return {index(value)};
  // A list, tuple or NumPy array of integers, read through a list (PySequence_Fast).
  const auto items = py::reinterpret_steal<py::object>(PySequence_Fast(value.ptr(), "client"));
  if (!items) {
    PyErr_Clear();
    throw bad();
  }
  const Py_ssize_t size = PySequence_Fast_GET_SIZE(items.ptr());
  std::vector<int> out;
  for (Py_ssize_t k = 0; k < size; ++k) {
    const py::handle item = PySequence_Fast_GET_ITEM(items.ptr(), k);
    out.push_back(index(item));  // PyNumber_Index refuses what is not an integer
  }
  return out;
}

// x as the protocol has it: K rows (chains) of d numbers; d × K for the oracle.
Matrix chains_arg(const py::handle& value) { return matrix_arg(value, "x").transpose(); }

py::object conformance(const PyProblem& p, const py::function& implementation,
                       const ConformanceArguments& a) {
  const auto* q = dynamic_cast<const theory::QuadraticProblem*>(p.problem.get());
  if (q == nullptr) {
    throw InputError("problem: conformance needs a quadratic problem (its laws are exact there)");
  }
  reports::ConformanceSpec spec;
  const theory::ResolvedAlgorithm run =
      chain_run(a.algo,
                claims::optimisers::fedopt_setting(a.gamma, a.local_steps, a.server, a.client,
                                                   a.participating),
                a.preset, a.server != "sgd", a.client != "sgd");
  spec.algorithm = run.algorithm;
  spec.step = run.step;
  spec.seed = a.seed;
  if (!a.trajectory.empty()) spec.trajectory = reports::parse_precision(a.trajectory, "trajectory");
  spec.per_model = a.per_model;
  spec.weight_decay = a.weight_decay;
  spec.chains = a.chains.value_or(spec.trajectory ? reports::kTrajectoryChains
                                  : a.per_model   ? reports::kPerModelChains
                                                  : spec.chains);
  spec.rounds = a.rounds.value_or(spec.trajectory ? reports::kTrajectoryRounds : spec.rounds);
  spec.burn_in = a.burn_in;
  spec.one_round_chains = a.one_round_chains;
  spec.alpha = a.alpha;
  const reports::Implementation attached{
      "implementation",
      [&](ConformanceOracle& oracle) {
        try {
          implementation(
              py::cast(&oracle, py::return_value_policy::reference),
              to_python(reports::run_message(oracle.run(), oracle.dim(), oracle.clients())));
        } catch (const py::error_already_set&) {
          // Once the iterates diverge the run is over and the oracle refuses further calls; the
          // exception that ends the implementation is then expected.
          if (oracle.diverged_round() == 0) throw;
        }
      },
      nullptr};  // per-model mode: the chains one after another (one Python thread)
  const reports::ConformanceResult r = reports::run_conformance(*q, spec, attached);
  nlohmann::json out = reports::conformance_to_json(spec, r);
  out.update(reports::preset_field(a.algo));
  return to_python(out);
}

}  // namespace

void bind_conformance(py::module_& m) {
  py::class_<ConformanceArguments>(m, "_ConformanceArguments")
      .def(py::init<std::string, double, int, std::string, std::string, int, theory::PresetValues,
                    std::uint64_t, std::optional<int>, std::optional<int>, int, int, double,
                    std::string, bool, double>());
  py::class_<ConformanceOracle>(m, "ConformanceOracle",
                                "fedverify's side of a conformance run: grad(client, x) returns "
                                "one stochastic gradient per chain (x: K × d), report(x) records "
                                "a round's iterates (K × d)")
      .def_property_readonly("dim", &ConformanceOracle::dim)
      .def_property_readonly("clients", &ConformanceOracle::clients)
      .def(
          "grad",
          [](ConformanceOracle& o, const py::handle& client, const py::handle& x) {
            const Matrix g = o.gradient(clients_arg(client), chains_arg(x));
            return to_numpy(Matrix(g.transpose()));
          },
          py::arg("client"), py::arg("x"))
      .def(
          "report", [](ConformanceOracle& o, const py::handle& x) { o.report(chains_arg(x)); },
          py::arg("x"));
  m.def("conformance", &conformance);
}

}  // namespace fedverify::python
