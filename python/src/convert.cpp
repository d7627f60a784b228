#include "python/src/convert.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::python {

namespace {

bool all_numbers(const nlohmann::json& array) {
  for (const auto& x : array) {
    if (!x.is_number()) return false;
  }
  return true;
}

// The common length of the rows of `array` when every element is a non-empty array of numbers
// of that length; 0 otherwise.
std::size_t matrix_columns(const nlohmann::json& array) {
  std::size_t columns = 0;
  for (const auto& row : array) {
    if (!row.is_array() || row.empty() || !all_numbers(row)) return 0;
    if (columns != 0 && row.size() != columns) return 0;
    columns = row.size();
  }
  return columns;
}

}  // namespace

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = to_python(value);
      return out;
    }
    case nlohmann::json::value_t::array: {
      if (!j.empty() && all_numbers(j)) {
        py::array_t<double> out(static_cast<py::ssize_t>(j.size()));
        auto view = out.mutable_unchecked<1>();
        for (std::size_t i = 0; i < j.size(); ++i) {
          view(static_cast<py::ssize_t>(i)) = j[i].get<double>();
        }
        return out;
      }
      if (const std::size_t columns = j.empty() ? 0 : matrix_columns(j); columns > 0) {
        py::array_t<double> out(
            {static_cast<py::ssize_t>(j.size()), static_cast<py::ssize_t>(columns)});
        auto view = out.mutable_unchecked<2>();
        for (std::size_t r = 0; r < j.size(); ++r) {
          for (std::size_t c = 0; c < columns; ++c) {
            view(static_cast<py::ssize_t>(r), static_cast<py::ssize_t>(c)) = j[r][c].get<double>();
          }
        }
        return out;
      }
      py::list out;
      for (const auto& x : j) out.append(to_python(x));
      return out;
    }
    case nlohmann::json::value_t::string:
      return py::str(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    default:
      return py::none();
  }
}

py::array_t<double> to_numpy(const Vector& v) {
  py::array_t<double> out(v.size());
  auto view = out.mutable_unchecked<1>();
  for (Eigen::Index i = 0; i < v.size(); ++i) view(i) = v(i);
  return out;
}

py::array_t<double> to_numpy(const Matrix& m) {
  py::array_t<double> out({m.rows(), m.cols()});
  auto view = out.mutable_unchecked<2>();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index c = 0; c < m.cols(); ++c) view(r, c) = m(r, c);
  }
  return out;
}

py::array_t<double> array_arg(const py::handle& value, const std::string& name, int ndim) {
  py::array_t<double> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  } catch (const py::error_already_set&) {
    a = py::array_t<double>();
  }
  if (!a || a.ndim() != ndim) {
    throw py::type_error(fmt::format("{}: expected a {} array of numbers{}", name,
                                     ndim == 1 ? "1-D" : fmt::format("{}-D", ndim),
                                     a ? fmt::format(", got {} dimensions", a.ndim()) : ""));
  }
  return a;
}

Vector vector_arg(const py::handle& value, const std::string& name) {
  const py::array_t<double> a = array_arg(value, name, 1);
  const auto view = a.unchecked<1>();
  Vector v(view.shape(0));
  for (py::ssize_t i = 0; i < view.shape(0); ++i) v(i) = view(i);
  return v;
}

Matrix matrix_arg(const py::handle& value, const std::string& name) {
  const py::array_t<double> a = array_arg(value, name, 2);
  const auto view = a.unchecked<2>();
  Matrix m(view.shape(0), view.shape(1));
  for (py::ssize_t r = 0; r < view.shape(0); ++r) {
    for (py::ssize_t c = 0; c < view.shape(1); ++c) m(r, c) = view(r, c);
  }
  return m;
}

theory::Algorithm chain_algorithm(const std::string& name) {
  const theory::Algorithm algorithm = theory::parse_algorithm(name, "algo");
  const theory::AlgorithmDescriptor& d = theory::describe(algorithm, "algo");
  if (d.family != theory::AlgorithmFamily::chain) {
    const std::string chains = theory::algorithm_names(
        [](const theory::AlgorithmDescriptor& a) {
          return a.family == theory::AlgorithmFamily::chain;
        },
        "and");
    throw InputError(fmt::format(
        "algo: the Python package runs the chain algorithms ({}), not {}; use the command line",
        chains, name));
  }
  return algorithm;
}

theory::ResolvedAlgorithm chain_run(const std::string& name, theory::RunSetting step,
                                    const theory::PresetValues& preset, bool server_given,
                                    bool client_given) {
  const theory::FieldNames fields{
      .parameter = [](std::string_view key) { return std::string(key); },
      .server = "server",
      .client = "client",
      .algorithm = "algo",
      .algorithm_key = "algo"};
  // The package runs the chain family only: refused before the setting (a personalised
  // algorithm's missing lambda is not the error).
  if (theory::find_algorithm(name) != nullptr) chain_algorithm(name);
  theory::ResolvedAlgorithm run =
      theory::resolve_algorithm(name, std::move(step), preset, server_given, client_given, fields);
  if (!run.preset.empty()) chain_algorithm(theory::to_string(run.algorithm));  // its base
  return run;
}

}  // namespace fedverify::python
