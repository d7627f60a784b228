// fedverify.Problem, load_problem, quadratic_problem, generate_quadratic (docs/PYTHON.md), and
// the text of generated linear-sa / least-squares files (docs/generators-linear-sa.md), and of
// problem files built from a CSV table (problem_from_csv, as `fedverify problem from-csv`).
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "python/src/convert.hpp"
#include "python/src/module.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/csv_problem.hpp"
#include "theory/problems/diabetes_data.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::python {

namespace {

// The clients' arrays of quadratic_problem: a sequence of N arrays (or an N × … array), each
// converted with `convert` under the name "<name>[c]".
template <typename Convert>
auto per_client(const py::handle& value, const std::string& name, Convert convert) {
  if (!py::isinstance<py::sequence>(value) && !py::isinstance<py::array>(value)) {
    throw py::type_error(fmt::format("{}: expected one array per client", name));
  }
  std::vector<decltype(convert(value, name))> out;
  const py::list seq = py::module_::import("builtins").attr("list")(value);
  for (std::size_t c = 0; c < seq.size(); ++c) {
    out.push_back(convert(seq[c], fmt::format("{}[{}]", name, c)));
  }
  return out;
}

PyProblem quadratic_problem(const py::object& hessians, const py::object& optima,
                            const py::object& noise_covs) {
  const std::vector<Matrix> a = per_client(hessians, "hessians", matrix_arg);
  const std::vector<Vector> b = per_client(optima, "optima", vector_arg);
  const std::vector<Matrix> s = per_client(noise_covs, "noise_covs", matrix_arg);
  if (b.size() != a.size() || s.size() != a.size()) {
    throw InputError(
        fmt::format("optima, noise_covs: expected one per client like hessians ({}), got {} and {}",
                    a.size(), b.size(), s.size()));
  }
  std::vector<theory::QuadraticClient> clients;
  for (std::size_t c = 0; c < a.size(); ++c) clients.push_back({a[c], b[c], s[c]});
  // QuadraticProblem's messages name the fields of a problem file (clients[1].hessian); here
  // they name the arguments (hessians[1]).
  try {
    return {std::make_shared<const theory::QuadraticProblem>(std::move(clients))};
  } catch (const InputError& e) {
    static const std::regex hessian("clients\\[(\\d+)\\]\\.hessian"),
        optimum("clients\\[(\\d+)\\]\\.optimum"), noise("clients\\[(\\d+)\\]\\.noise_cov");
    std::string message = std::regex_replace(e.what(), hessian, "hessians[$1]");
    message = std::regex_replace(message, optimum, "optima[$1]");
    throw InputError(std::regex_replace(message, noise, "noise_covs[$1]"));
  }
}

// Client index and point of Problem.gradient and its siblings, checked: errors name the
// arguments (client, x) as the other functions of the package do.
int client_arg(const PyProblem& p, int client) {
  const int n = p.problem->num_clients();
  if (client < 0 || client >= n) {
    throw InputError(fmt::format("client: must lie in [0, {}], got {}", n - 1, client));
  }
  return client;
}

Vector point_arg(const PyProblem& p, const py::handle& x) {
  Vector v = vector_arg(x, "x");
  if (v.size() != p.problem->dim()) {
    throw InputError(fmt::format("x: expected {} entries (the dimension d), got {}",
                                 p.problem->dim(), v.size()));
  }
  if (!v.allFinite()) throw InputError("x: must be finite");
  return v;
}

}  // namespace

void bind_problems(py::module_& m) {
  py::class_<PyProblem>(m, "Problem")
      .def_property_readonly(
          "kind", [](const PyProblem& p) { return theory::to_string(p.problem->kind()); })
      .def_property_readonly("dim", [](const PyProblem& p) { return p.problem->dim(); })
      .def_property_readonly("num_clients",
                             [](const PyProblem& p) { return p.problem->num_clients(); })
      .def("to_json", [](const PyProblem& p) { return theory::problem_to_json(*p.problem).dump(); })
      // The problem file's content as Python objects (numbers arrays as NumPy arrays), field names
      // as in docs/PROBLEM_FORMATS.md: one writer, theory::problem_to_json.
      .def("to_dict",
           [](const PyProblem& p) { return to_python(theory::problem_to_json(*p.problem)); })
      .def_property_readonly("clients",
                             [](const PyProblem& p) {
                               return to_python(theory::problem_to_json(*p.problem)["clients"]);
                             })
      // The normalised client weights p_c (THEORY (A1)); 1/N each for an unweighted problem.
      .def_property_readonly("weights",
                             [](const PyProblem& p) {
                               std::vector<double> w;
                               w.reserve(static_cast<std::size_t>(p.problem->num_clients()));
                               for (int c = 0; c < p.problem->num_clients(); ++c) {
                                 w.push_back(p.problem->weight(c));
                               }
                               return w;
                             })
      .def_property_readonly("strong_convexity",
                             [](const PyProblem& p) { return p.problem->strong_convexity(); })
      .def_property_readonly("smoothness",
                             [](const PyProblem& p) { return p.problem->smoothness(); })
      .def(
          "value",
          [](const PyProblem& p, int client, const py::object& x) {
            return p.problem->value(client_arg(p, client), point_arg(p, x));
          },
          py::arg("client"), py::arg("x"))
      .def(
          "gradient",
          [](const PyProblem& p, int client, const py::object& x) {
            return to_numpy(p.problem->gradient(client_arg(p, client), point_arg(p, x)));
          },
          py::arg("client"), py::arg("x"))
      .def(
          "hessian",
          [](const PyProblem& p, int client, const py::object& x) {
            return to_numpy(p.problem->hessian(client_arg(p, client), point_arg(p, x)));
          },
          py::arg("client"), py::arg("x"))
      .def(
          "noise_covariance",
          [](const PyProblem& p, int client, const py::object& x) {
            return to_numpy(p.problem->noise_covariance(client_arg(p, client), point_arg(p, x)));
          },
          py::arg("client"), py::arg("x"))
      .def("__repr__", [](const PyProblem& p) {
        return fmt::format("<fedverify.Problem {} d={} N={}>", theory::to_string(p.problem->kind()),
                           p.problem->dim(), p.problem->num_clients());
      });
  m.def("load_problem", [](const std::string& path) {
    return PyProblem{std::shared_ptr<const theory::Problem>(theory::load_problem(path))};
  });
  m.def("parse_problem", [](const std::string& text) {
    const nlohmann::json j = theory::parse_json_text(text, "problem");
    return PyProblem{std::shared_ptr<const theory::Problem>(theory::parse_problem(j, "problem"))};
  });
  m.def("quadratic_problem", &quadratic_problem);
  m.def("generate_quadratic", [](int dim, int clients, double condition, double optimum_spread,
                                 double hessian_spread, double noise, std::uint64_t seed) {
    theory::QuadraticGeneratorOptions o;
    o.dim = dim;
    o.clients = clients;
    o.condition = condition;
    o.optimum_spread = optimum_spread;
    o.hessian_spread = hessian_spread;
    o.noise = noise;
    o.seed = seed;
    theory::validate(o);
    return PyProblem{
        std::make_shared<const theory::QuadraticProblem>(theory::generate_quadratic(o))};
  });
  m.def("generate_garnet_td",
        [](int states, int actions, int branching, int features, double discount, int clients,
           double kernel_heterogeneity, double reward_heterogeneity, const std::string& feature_map,
           int batch_size, std::uint64_t seed) {
          theory::GarnetOptions o;
          o.states = states;
          o.actions = actions;
          o.branching = branching;
          o.features = features;
          o.discount = discount;
          o.clients = clients;
          o.kernel_heterogeneity = kernel_heterogeneity;
          o.reward_heterogeneity = reward_heterogeneity;
          o.feature_map = theory::parse_garnet_features(feature_map);
          o.batch_size = batch_size;
          o.seed = seed;
          return theory::garnet_td_json(o).dump();
        });
  m.def("generate_diabetes", [](int clients, const std::string& split, double alpha, int bins,
                                const std::string& shift_feature, double l2, int batch_size,
                                bool standardise_target, std::uint64_t seed) {
    theory::DiabetesOptions o;
    o.clients = clients;
    o.split = theory::parse_diabetes_split(split);
    o.alpha = alpha;
    o.bins = bins;
    o.shift_feature = shift_feature;
    o.l2 = l2;
    o.batch_size = batch_size;
    o.standardise_target = standardise_target;
    o.seed = seed;
    return theory::diabetes_least_squares_json(o).dump();
  });
  // The arguments in the order of fedverify.problem_from_csv (api.py checks their types).
  m.def("problem_from_csv", [](const std::string& path, const std::string& label,
                               const std::string& kind, const std::vector<std::string>& features,
                               const std::string& split, int clients, double alpha, int bins,
                               const std::string& client_column, const std::string& positive_label,
                               bool standardise, bool intercept, double l2, int batch_size,
                               std::uint64_t seed, const std::string& delimiter) {
    if (delimiter.size() != 1) {
      throw InputError(fmt::format("delimiter: expected one character, got \"{}\"", delimiter));
    }
    theory::CsvProblemOptions o;
    o.label = label;
    o.kind = kind;
    o.features = features;
    o.split = split;
    o.clients = clients;
    o.alpha = alpha;
    o.bins = bins;
    o.client_column = client_column;
    o.positive_label = positive_label;
    o.standardise = standardise;
    o.intercept = intercept;
    o.l2 = l2;
    o.batch_size = batch_size;
    o.seed = seed;
    o.delimiter = delimiter[0];
    return theory::csv_problem_json(path, o).dump() + "\n";
  });
}

}  // namespace fedverify::python
