#include "theory/problems/problem_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/client_weights_io.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

const nlohmann::json& json_member(const nlohmann::json& j, const char* name,
                                  const std::string& at) {
  const auto it = j.find(name);
  if (it == j.end()) throw InputError(fmt::format("{}{}: missing", at, name));
  return *it;
}
namespace {

// What a message says about a value found where another was expected: scalars as written
// (strings capped and escaped, limits::quote_input), containers by their kind and size only, so
// that a message never serialises unbounded input.
std::string describe_value(const nlohmann::json& j) {
  if (j.is_array()) return fmt::format("an array of {} element(s)", j.size());
  if (j.is_object()) return fmt::format("an object of {} field(s)", j.size());
  return limits::quote_input(j.dump());
}

double number_at(const nlohmann::json& j, const std::string& field) {
  if (!j.is_number())
    throw InputError(fmt::format("{}: expected a number, got {}", field, describe_value(j)));
  return j.get<double>();
}

// Builds the document from SAX events (nlohmann::json_sax), keeping the path of the value being
// read ("clients[0].hessian") so that a repeated key can be named, and turning every parse error
// into an InputError with its byte offset. Containers nest at most limits::kMaxJsonDepth deep:
// the first one beyond is refused at once, so the reader's memory stays linear in the input (each
// open container holds its path, whose length grows with the depth).
class StrictDocumentBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit StrictDocumentBuilder(std::string at) : at_(std::move(at)) {}

  nlohmann::json take() { return std::move(root_); }

  bool null() override { return add(nullptr), true; }
  bool boolean(bool v) override { return add(v), true; }
  bool number_integer(number_integer_t v) override { return add(v), true; }
  bool number_unsigned(number_unsigned_t v) override { return add(v), true; }
  bool number_float(number_float_t v, const string_t&) override { return add(v), true; }
  bool string(string_t& v) override { return add(v), true; }
  bool binary(binary_t& v) override { return add(nlohmann::json::binary(v)), true; }

  bool start_object(std::size_t) override { return open(nlohmann::json::object()), true; }
  bool start_array(std::size_t) override { return open(nlohmann::json::array()), true; }
  bool end_object() override { return open_.pop_back(), true; }
  bool end_array() override { return open_.pop_back(), true; }

  bool key(string_t& k) override {
    Container& object = open_.back();
    if (!object.keys.insert(k).second) {
      throw InputError(fmt::format("{}{}: duplicate key (a field may appear only once)", at_,
                                   limits::quote_input(child_path(object, k))));
    }
    object.pending_key = k;
    return true;
  }

  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::json::exception& e) override {
    // 406: the lexer read a number literal that overflows double (e.g. 1e999).
    constexpr int kNumberOverflow = 406;
    if (e.id == kNumberOverflow) {
      throw InputError(fmt::format("{}number out of range at byte {}: {} does not fit in a double",
                                   at_, byte, limits::quote_input(token)));
    }
    throw InputError(fmt::format("{}malformed JSON (byte {}): {}", at_, byte,
                                 limits::quote_input(e.what(), 200)));
  }

 private:
  struct Container {
    nlohmann::json* value;
    std::string path;
    std::set<std::string> keys;  // objects: the keys seen so far
    std::string pending_key;     // objects: the key of the next value
    std::size_t next_index = 0;  // arrays: the index of the next value
  };

  static std::string child_path(const Container& parent, const std::string& key) {
    return parent.path.empty() ? key : parent.path + "." + key;
  }

  // The path of the next value placed in `parent`.
  static std::string next_path(const Container& parent) {
    return parent.value->is_array() ? fmt::format("{}[{}]", parent.path, parent.next_index)
                                    : child_path(parent, parent.pending_key);
  }

  // Places v in the innermost open container (or as the root); returns where it now lives.
  nlohmann::json* add(nlohmann::json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Container& parent = open_.back();
    if (parent.value->is_array()) {
      parent.value->push_back(std::move(v));
      ++parent.next_index;
      return &parent.value->back();
    }
    nlohmann::json& slot = (*parent.value)[parent.pending_key];
    slot = std::move(v);
    return &slot;
  }

  // Pointers stay valid: a container receives no new element while a child of it is open. Only
  // containers carry their path (scalars never need one: a duplicate key names its object).
  void open(nlohmann::json empty) {
    if (open_.size() >= static_cast<std::size_t>(limits::kMaxJsonDepth)) {
      throw InputError(
          fmt::format("{}{}: nesting deeper than {} levels (problem files need 4; docs/CLI.md, "
                      "resource limits)",
                      at_, limits::quote_input(open_.back().path), limits::kMaxJsonDepth));
    }
    std::string path = open_.empty() ? std::string() : next_path(open_.back());
    nlohmann::json* value = add(std::move(empty));
    open_.push_back({value, std::move(path), {}, {}, 0});
  }

  std::string at_;
  nlohmann::json root_;
  std::vector<Container> open_;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  StrictDocumentBuilder builder(source.empty() ? std::string() : source + ": ");
  // The builder throws InputError itself on every failure, so a false return cannot happen.
  if (!nlohmann::json::sax_parse(text, &builder)) {
    throw InputError(fmt::format("{}: malformed JSON", source));
  }
  return builder.take();
}

void require_known_fields(const nlohmann::json& object, std::initializer_list<const char*> known,
                          const std::string& at) {
  require_known_fields(object, std::vector<std::string_view>(known.begin(), known.end()), at);
}

void require_known_fields(const nlohmann::json& object, const std::vector<std::string_view>& known,
                          const std::string& at) {
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw InputError(fmt::format("{}{}: unknown field (expected {})", at,
                                   limits::quote_input(key), fmt::join(known, ", ")));
    }
  }
}

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
      throw InputError(
          fmt::format("{}: expected {} numbers (rows must have equal length)", row_field, cols));
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
  const auto& clients = json_member(j, "clients", at);
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  std::vector<QuadraticClient> parsed;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const std::string cat = fmt::format("{}clients[{}].", at, c);
    if (!clients[c].is_object())
      throw InputError(cat.substr(0, cat.size() - 1) + ": expected an object");
    require_known_fields(clients[c], {"hessian", "optimum", "noise_cov", "weight"}, cat);
    QuadraticClient qc;
    qc.hessian = matrix_from_json(json_member(clients[c], "hessian", cat), cat + "hessian");
    qc.optimum = vector_from_json(json_member(clients[c], "optimum", cat), cat + "optimum");
    qc.noise_cov = matrix_from_json(json_member(clients[c], "noise_cov", cat), cat + "noise_cov");
    parsed.push_back(std::move(qc));
  }
  try {
    return std::make_unique<QuadraticProblem>(std::move(parsed));
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

}  // namespace

namespace {

// The documented ranges of a problem's sizes (docs/CLI.md, "Resource limits").
std::unique_ptr<Problem> within_limits(std::unique_ptr<Problem> problem, const std::string& at) {
  limits::require_range(at + "clients", problem->num_clients(), 1, limits::kMaxClients,
                        "number of clients; docs/CLI.md, resource limits");
  limits::require_range(at + "dimension", problem->dim(), 1, limits::kMaxDimension,
                        "docs/CLI.md, resource limits");
  return problem;
}

// The curvature of a logistic f_c is at most l2 + max_j ‖a_j‖²/4 (φ'' ≤ 1/4, THEORY §6). The
// minimiser and the closed forms multiply curvatures with each other (Newton steps, eigenvalues),
// so the bound must stay below limits::kMaxLogisticCurvature, whose square is still a double.
void require_logistic_scale(const LogisticProblem& problem, const std::string& at) {
  double largest_feature2 = 0;
  int where = 0;
  for (int c = 0; c < problem.num_clients(); ++c) {
    const double f2 = problem.client(c).features.rowwise().squaredNorm().maxCoeff();
    if (!(f2 <= largest_feature2)) where = c;
    largest_feature2 = std::max(largest_feature2, std::isfinite(f2) ? f2 : HUGE_VAL);
  }
  constexpr double kMaxPhiSecond = 0.25;  // φ''(s) = σ(s)(1 − σ(s)) ≤ 1/4
  const double curvature = problem.l2() + kMaxPhiSecond * largest_feature2;
  if (!(curvature <= limits::kMaxLogisticCurvature)) {
    throw InputError(fmt::format(
        "{}{}: the curvature bound l2 + max_j |a_j|^2/4 = {} exceeds {:g} (l2 = {:g}); products "
        "of curvatures would overflow double precision: rescale the features or l2",
        at,
        problem.l2() * 1.0 > limits::kMaxLogisticCurvature
            ? std::string("l2")
            : fmt::format("clients[{}].features", where),
        std::isfinite(curvature) ? fmt::format("{:.3g}", curvature)
                                 : std::string("beyond double range"),
        limits::kMaxLogisticCurvature, problem.l2()));
  }
}

}  // namespace

// Registered problem kinds besides "quadratic" (LogisticProblem registers itself in
// logistic_problem.cpp through this hook, keeping problem_io free of its details).
std::unique_ptr<Problem> parse_logistic(const nlohmann::json& j, const std::string& at);
nlohmann::json logistic_to_json(const Problem& problem);
// "linear-sa" and "least-squares" (linear_sa_io.cpp; THEORY (L0)).
std::unique_ptr<Problem> parse_linear_sa(const nlohmann::json& j, const std::string& kind,
                                         const std::string& at);
nlohmann::json linear_sa_to_json(const Problem& problem);

namespace {

// The problem with the client weights of `j` (client_weights_io.hpp).
std::unique_ptr<Problem> weighted(std::unique_ptr<Problem> problem, const nlohmann::json& j,
                                  const std::string& at) {
  read_client_weights(*problem, j, at);
  return problem;
}

nlohmann::json kind_to_json(const Problem& problem);

}  // namespace

std::unique_ptr<Problem> parse_problem(const nlohmann::json& j, const std::string& source) {
  const std::string at = source.empty() ? std::string() : source + ": ";
  if (!j.is_object()) throw InputError(at + "expected a JSON object at top level");
  const auto& kind = json_member(j, "kind", at);
  if (!kind.is_string()) throw InputError(at + "kind: expected a string");
  const auto k = kind.get<std::string>();
  // "generator": the options a generator was run with (verify/data/logistic_d5_n10.json), a
  // record for the reader; it does not enter the problem.
  if (j.contains("generator") && !j["generator"].is_object()) {
    throw InputError(at + "generator: expected an object (the generator's options)");
  }
  if (k == "quadratic") {
    require_known_fields(j, {"kind", "clients", "generator"}, at);
    return weighted(within_limits(parse_quadratic(j, at), at), j, at);
  }
  if (k == "logistic") {
    require_known_fields(j, {"kind", "l2", "batch_size", "clients", "client_weights", "generator"},
                         at);
    std::unique_ptr<Problem> problem = parse_logistic(j, at);  // batch_size: an int by now
    limits::require_range(at + "batch_size", j["batch_size"].get<std::int64_t>(), 1,
                          limits::kMaxBatchSize, "docs/CLI.md, resource limits");
    require_logistic_scale(dynamic_cast<const LogisticProblem&>(*problem), at);
    return weighted(within_limits(std::move(problem), at), j, at);
  }
  if (k == "linear-sa" || k == "least-squares") {
    return weighted(within_limits(parse_linear_sa(j, k, at), at), j, at);
  }
  if (is_game_kind(k)) {
    throw InputError(fmt::format(
        "{}kind: \"{}\" is a game; games are read by --algo fedgda or fedsgda (THEORY §10)", at,
        k));
  }
  throw InputError(
      fmt::format("{}kind: unknown problem kind \"{}\" (expected \"quadratic\", "
                  "\"logistic\", \"linear-sa\" or \"least-squares\")",
                  at, limits::quote_input(k)));
}

std::string read_text_file(const std::string& path, std::int64_t max_bytes, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open {}", path, what));
  // Read at most one byte beyond the limit: a larger file (or an endless one such as /dev/zero)
  // is refused without reading it all.
  std::string text;
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<char> chunk(kChunk);
  while (in && text.size() <= static_cast<std::size_t>(max_bytes)) {
    in.read(chunk.data(), static_cast<std::streamsize>(kChunk));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read {}", path, what));
  if (text.size() > static_cast<std::size_t>(max_bytes)) {
    throw InputError(
        fmt::format("{}: larger than {} bytes (docs/CLI.md, resource limits)", path, max_bytes));
  }
  return text;
}

std::unique_ptr<Problem> load_problem(const std::string& path) {
  const std::string text = read_text_file(path, limits::kMaxProblemFileBytes, "problem file");
  return parse_problem(parse_json_text(text, path), path);
}

nlohmann::json problem_to_json(const Problem& problem) {
  nlohmann::json j = kind_to_json(problem);
  write_client_weights(problem, j);
  return j;
}

namespace {

nlohmann::json kind_to_json(const Problem& problem) {
  if (problem.kind() == ProblemKind::logistic) return logistic_to_json(problem);
  if (problem.kind() == ProblemKind::linear_sa || problem.kind() == ProblemKind::least_squares) {
    return linear_sa_to_json(problem);
  }
  const auto& q = dynamic_cast<const QuadraticProblem&>(problem);
  nlohmann::json clients = nlohmann::json::array();
  for (int c = 0; c < q.num_clients(); ++c) {
    clients.push_back({{"hessian", to_json(q.client(c).hessian)},
                       {"optimum", to_json(q.client(c).optimum)},
                       {"noise_cov", to_json(q.client(c).noise_cov)}});
  }
  return {{"kind", "quadratic"}, {"clients", clients}};
}

}  // namespace

}  // namespace fedverify::theory
