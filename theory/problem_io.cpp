#include "theory/problem_io.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "theory/input_error.hpp"
#include "theory/quadratic_problem.hpp"

namespace fedverify::theory {
namespace {

double number_at(const nlohmann::json& j, const std::string& field) {
  if (!j.is_number()) throw InputError(fmt::format("{}: expected a number, got {}", field, j.dump()));
  return j.get<double>();
}

const nlohmann::json& member(const nlohmann::json& j, const char* name, const std::string& at) {
  const auto it = j.find(name);
  if (it == j.end()) throw InputError(fmt::format("{}{}: missing", at, name));
  return *it;
}

}  // namespace

Vector vector_from_json(const nlohmann::json& j, const std::string& field) {
  if (!j.is_array()) throw InputError(fmt::format("{}: expected an array of numbers", field));
  Vector v(static_cast<Eigen::Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i) {
    v(static_cast<Eigen::Index>(i)) = number_at(j[i], fmt::format("{}[{}]", field, i));
  }
  return v;
}

Matrix matrix_from_json(const nlohmann::json& j, const std::string& field) {
  if (!j.is_array() || j.empty()) {
    throw InputError(fmt::format("{}: expected a non-empty array of rows", field));
  }
  const std::size_t rows = j.size();
  if (!j[0].is_array()) throw InputError(fmt::format("{}[0]: expected an array of numbers", field));
  const std::size_t cols = j[0].size();
  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string row_field = fmt::format("{}[{}]", field, r);
    if (!j[r].is_array() || j[r].size() != cols) {
      throw InputError(fmt::format("{}: expected {} numbers (rows must have equal length)",
                                   row_field, cols));
    }
    for (std::size_t c = 0; c < cols; ++c) {
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          number_at(j[r][c], fmt::format("{}[{}]", row_field, c));
    }
  }
  return m;
}

nlohmann::json to_json(const Vector& v) {
  nlohmann::json j = nlohmann::json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) j.push_back(v(i));
  return j;
}

nlohmann::json to_json(const Matrix& m) {
  nlohmann::json j = nlohmann::json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    j.push_back(std::move(row));
  }
  return j;
}

namespace {

std::unique_ptr<Problem> parse_quadratic(const nlohmann::json& j, const std::string& at) {
  const auto& clients = member(j, "clients", at);
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  std::vector<QuadraticClient> parsed;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const std::string cat = fmt::format("{}clients[{}].", at, c);
    if (!clients[c].is_object()) throw InputError(cat.substr(0, cat.size() - 1) + ": expected an object");
    QuadraticClient qc;
    qc.hessian = matrix_from_json(member(clients[c], "hessian", cat), cat + "hessian");
    qc.optimum = vector_from_json(member(clients[c], "optimum", cat), cat + "optimum");
    qc.noise_cov = matrix_from_json(member(clients[c], "noise_cov", cat), cat + "noise_cov");
    parsed.push_back(std::move(qc));
  }
  try {
    return std::make_unique<QuadraticProblem>(std::move(parsed));
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

}  // namespace

// Registered problem kinds besides "quadratic" (LogisticProblem registers itself in
// logistic_problem.cpp through this hook, keeping problem_io free of its details).
std::unique_ptr<Problem> parse_logistic(const nlohmann::json& j, const std::string& at);
nlohmann::json logistic_to_json(const Problem& problem);

std::unique_ptr<Problem> parse_problem(const nlohmann::json& j, const std::string& source) {
  const std::string at = source.empty() ? std::string() : source + ": ";
  if (!j.is_object()) throw InputError(at + "expected a JSON object at top level");
  const auto& kind = member(j, "kind", at);
  if (!kind.is_string()) throw InputError(at + "kind: expected a string");
  const auto k = kind.get<std::string>();
  if (k == "quadratic") return parse_quadratic(j, at);
  if (k == "logistic") return parse_logistic(j, at);
  throw InputError(fmt::format("{}kind: unknown problem kind \"{}\" (expected \"quadratic\" or "
                               "\"logistic\")", at, k));
}

std::unique_ptr<Problem> load_problem(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open problem file", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: malformed JSON (byte {}): {}", path, e.byte, e.what()));
  }
  return parse_problem(j, path);
}

nlohmann::json problem_to_json(const Problem& problem) {
  if (problem.kind() == ProblemKind::logistic) return logistic_to_json(problem);
  const auto& q = dynamic_cast<const QuadraticProblem&>(problem);
  nlohmann::json clients = nlohmann::json::array();
  for (int c = 0; c < q.num_clients(); ++c) {
    clients.push_back({{"hessian", to_json(q.client(c).hessian)},
                       {"optimum", to_json(q.client(c).optimum)},
                       {"noise_cov", to_json(q.client(c).noise_cov)}});
  }
  return {{"kind", "quadratic"}, {"clients", clients}};
}

}  // namespace fedverify::theory
