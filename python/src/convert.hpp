// Conversions between the Python objects of the fedverify package and the C++ types of the
// layers: NumPy arrays ↔ Eigen, nlohmann::json → Python (lists of numbers become NumPy arrays),
// and the arguments a user passes (each error names the argument, as the command line names
// its flag).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "theory/base/linalg.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::python {

namespace py = pybind11;

// A problem as the package holds it (fedverify.Problem): immutable and shared.
struct PyProblem {
  std::shared_ptr<const theory::Problem> problem;
};

// JSON → Python: objects → dict, strings, booleans, integers and floats as themselves, an array
// of numbers → a 1-D float64 array, an array of equally long arrays of numbers → a 2-D array,
// any other array → list.
py::object to_python(const nlohmann::json& j);

py::array_t<double> to_numpy(const Vector& v);
py::array_t<double> to_numpy(const Matrix& m);

// `value` as a float64 array of `ndim` dimensions; TypeError "<name>: expected …" when it is not
// array-like numbers of that many dimensions.
py::array_t<double> array_arg(const py::handle& value, const std::string& name, int ndim);
Vector vector_arg(const py::handle& value, const std::string& name);
Matrix matrix_arg(const py::handle& value, const std::string& name);

// The algorithm named `name` if it is a chain algorithm (the family predict and simulate of this
// package cover); InputError naming `algo` otherwise.
theory::Algorithm chain_algorithm(const std::string& name);

// The run `name` stands for (a chain algorithm, or a preset of one: theory/problems/
// algorithm_preset.hpp, with its parameters `preset`) at `step`; errors name the keyword
// arguments (algo, server, client, mu, …). `server_given` / `client_given`: those arguments were
// not the default "sgd" (a preset that sets the optimisers refuses them).
theory::ResolvedAlgorithm chain_run(const std::string& name, theory::RunSetting step,
                                    const theory::PresetValues& preset, bool server_given,
                                    bool client_given);

}  // namespace fedverify::python
