#include "theory/problems/csv_problem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/linalg.hpp"
#include "theory/problems/csv_table.hpp"
#include "theory/problems/diabetes_data.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {
namespace {

// The header's column names and the data rows (every one as wide as the header).
struct Table {
  std::string path;
  int header_line = 0;
  std::vector<std::string> names;
  std::vector<CsvLine> rows;
};

Table read_table(const std::string& path, char delimiter) {
  std::vector<CsvLine> lines = read_csv_lines(path, delimiter);
  Table t{path, lines[0].number, std::move(lines[0].fields), {}};
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    const auto where = fmt::format("{}: line {}, column {}", path, t.header_line, c + 1);
    if (t.names[c].empty()) {
      throw InputError(
          fmt::format("{}: empty column name (the first line is the header row: "
                      "every column needs a name)",
                      where));
    }
    const auto first = std::find(t.names.begin(), t.names.end(), t.names[c]);
    if (first - t.names.begin() < static_cast<std::ptrdiff_t>(c)) {
      throw InputError(fmt::format("{}: column name \"{}\" repeats column {}", where, t.names[c],
                                   first - t.names.begin() + 1));
    }
  }
  t.rows.assign(std::make_move_iterator(lines.begin() + 1), std::make_move_iterator(lines.end()));
  if (t.rows.empty()) {
    throw InputError(
        fmt::format("{}: no data rows after the header (line {})", path, t.header_line));
  }
  for (const CsvLine& row : t.rows) {
    if (row.fields.size() != t.names.size()) {
      throw InputError(fmt::format("{}: line {}: {} fields, the header (line {}) has {}", path,
                                   row.number, row.fields.size(), t.header_line, t.names.size()));
    }
  }
  return t;
}

std::string column_list(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 12;
  const std::vector<std::string> shown(names.begin(),
                                       names.begin() + std::min(names.size(), kShown));
  return fmt::format("{}{}", fmt::join(shown, ", "), names.size() > kShown ? ", …" : "");
}

int column_of(const Table& t, const std::string& name, const char* option) {
  const auto it = std::find(t.names.begin(), t.names.end(), name);
  if (it == t.names.end()) {
    throw InputError(fmt::format("{}: no column named \"{}\" in {} (the columns are {})", option,
                                 name, t.path, column_list(t.names)));
  }
  return static_cast<int>(it - t.names.begin());
}

std::string where(const Table& t, const CsvLine& row, int column) {
  return fmt::format("{}: line {}, column {} ({})", t.path, row.number, column + 1,
                     t.names[static_cast<std::size_t>(column)]);
}

const std::string& cell(const CsvLine& row, int column) {
  return row.fields[static_cast<std::size_t>(column)];
}

double number(const Table& t, const CsvLine& row, int column) {
  const std::string& field = cell(row, column);
  if (field.empty()) {
    throw InputError(fmt::format("{}: empty cell (a missing value: remove the row or impute it)",
                                 where(t, row, column)));
  }
  const auto value = parse_csv_number(field);
  if (!value) {
    throw InputError(fmt::format("{}: \"{}\" is not a number", where(t, row, column), field));
  }
  if (!std::isfinite(*value)) {
    throw InputError(
        fmt::format("{}: \"{}\" is not a finite number (NaN and infinite cells are "
                    "refused: remove the row or impute the value)",
                    where(t, row, column), field));
  }
  return *value;
}

// The value mapped to +1 of two labels: positive_label if given, else the larger (numerically
// when both are numbers, so {0, 1} and {−1, 1} map to themselves, else as text).
std::array<std::string, 2> label_classes(std::array<std::string, 2> values,
                                         const std::string& positive, const std::string& column) {
  if (!positive.empty()) {
    if (positive == values[0]) std::swap(values[0], values[1]);
    if (positive != values[1]) {
      throw InputError(fmt::format("positive_label: \"{}\" is not a value of {} (\"{}\", \"{}\")",
                                   positive, column, values[0], values[1]));
    }
    return values;
  }
  const auto a = parse_csv_number(values[0]), b = parse_csv_number(values[1]);
  if ((a && b) ? (*a > *b) : (values[0] > values[1])) std::swap(values[0], values[1]);
  return values;
}

// ±1 labels of a two-valued column; `classes` receives the values mapped to −1 and +1.
Vector logistic_labels(const Table& t, int column, const std::string& positive,
                       std::array<std::string, 2>* classes) {
  std::vector<std::string> seen;
  for (const CsvLine& row : t.rows) {
    const std::string& v = cell(row, column);
    if (v.empty()) throw InputError(fmt::format("{}: empty label", where(t, row, column)));
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  const std::string name = fmt::format("column {} ({})", column + 1, t.names[column]);
  if (seen.size() != 2) {
    std::vector<std::string> quoted;
    for (std::size_t i = 0; i < std::min<std::size_t>(seen.size(), 5); ++i) {
      quoted.push_back(fmt::format("\"{}\"", seen[i]));
    }
    throw InputError(fmt::format(
        "label: {} of {} holds {} distinct value{} ({}{}); a logistic problem needs exactly two "
        "(real targets: kind least-squares)",
        name, t.path, seen.size(), seen.size() == 1 ? "" : "s", fmt::join(quoted, ", "),
        seen.size() > 5 ? ", …" : ""));
  }
  *classes = label_classes({seen[0], seen[1]}, positive, name);
  Vector y(static_cast<Eigen::Index>(t.rows.size()));
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    y(static_cast<Eigen::Index>(r)) = cell(t.rows[r], column) == (*classes)[1] ? 1.0 : -1.0;
  }
  return y;
}

std::vector<int> feature_columns(const Table& t, const CsvProblemOptions& o, int label,
                                 int client_column) {
  std::vector<int> columns;
  if (o.features.empty()) {
    for (int c = 0; c < static_cast<int>(t.names.size()); ++c) {
      if (c != label && c != client_column) columns.push_back(c);
    }
    if (columns.empty()) {
      throw InputError(fmt::format("features: {} has no column besides the label{}", t.path,
                                   client_column >= 0 ? " and the client column" : ""));
    }
    return columns;
  }
  for (const std::string& name : o.features) {
    const int c = column_of(t, name, "features");
    if (c == label) throw InputError(fmt::format("features: \"{}\" is the label column", name));
    if (c == client_column) {
      throw InputError(fmt::format("features: \"{}\" is the client column", name));
    }
    if (std::find(columns.begin(), columns.end(), c) != columns.end()) {
      throw InputError(fmt::format("features: \"{}\" is named twice", name));
    }
    columns.push_back(c);
  }
  return columns;
}

std::vector<double> row_of(const Matrix& m, Eigen::Index r) {
  std::vector<double> out(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index j = 0; j < m.cols(); ++j) out[static_cast<std::size_t>(j)] = m(r, j);
  return out;
}

void require_rows_for_clients(const Table& t, int clients) {
  const auto rows = static_cast<int>(t.rows.size());
  if (rows < clients) {
    throw InputError(fmt::format(
        "clients: client {} would receive no rows: {} has {} data rows for {} clients (use at "
        "most {} clients)",
        rows, t.path, rows, clients, rows));
  }
}

}  // namespace

void validate(const CsvProblemOptions& o) {
  if (o.kind != "logistic" && o.kind != "least-squares") {
    throw InputError(
        fmt::format("kind: expected \"logistic\" or \"least-squares\", got \"{}\"", o.kind));
  }
  if (o.label.empty()) throw InputError("label: required, the name of the label column");
  if (o.split != "iid" && o.split != "dirichlet" && o.split != "by-column") {
    throw InputError(fmt::format(
        "split: expected \"iid\", \"dirichlet\" or \"by-column\", got \"{}\"", o.split));
  }
  if (o.split == "by-column") {
    if (o.client_column.empty()) {
      throw InputError("client_column: required by split by-column (the column naming clients)");
    }
    if (o.clients < 0) throw InputError(fmt::format("clients: must be >= 0, got {}", o.clients));
  } else {
    if (!o.client_column.empty()) {
      throw InputError(
          fmt::format("client_column: read by split by-column only (split is {})", o.split));
    }
    if (o.clients == 0) {
      throw InputError(
          fmt::format("clients: required, the number of clients N >= 1 (split {})", o.split));
    }
    if (o.clients < 0) throw InputError(fmt::format("clients: must be >= 1, got {}", o.clients));
  }
  if (!(o.alpha > 0) || !std::isfinite(o.alpha)) {
    throw InputError(fmt::format("alpha: must be finite and > 0, got {}", o.alpha));
  }
  if (o.bins < 1) throw InputError(fmt::format("bins: must be >= 1, got {}", o.bins));
  if (o.kind != "logistic" && !o.positive_label.empty()) {
    throw InputError("positive_label: read by kind logistic only");
  }
  if (!std::isfinite(o.l2) || o.l2 < 0) {
    throw InputError(fmt::format("l2: must be a finite number >= 0, got {}", o.l2));
  }
  if (o.batch_size < 1 || o.batch_size > (1 << 20)) {
    throw InputError(fmt::format("batch_size: must lie in [1, 1048576], got {}", o.batch_size));
  }
}

std::vector<std::vector<int>> by_value_assignment(const std::vector<std::string>& values,
                                                  std::vector<std::string>* client_values) {
  std::vector<std::string> distinct = values;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const bool numeric = std::all_of(distinct.begin(), distinct.end(), [](const std::string& v) {
    const auto x = parse_csv_number(v);
    return x && std::isfinite(*x);
  });
  if (numeric) {  // stable: "1" and "1.0" stay two clients, in text order
    std::stable_sort(distinct.begin(), distinct.end(), [](const auto& a, const auto& b) {
      return *parse_csv_number(a) < *parse_csv_number(b);
    });
  }
  std::vector<std::vector<int>> out(distinct.size());
  for (std::size_t r = 0; r < values.size(); ++r) {
    const auto c = std::find(distinct.begin(), distinct.end(), values[r]) - distinct.begin();
    out[static_cast<std::size_t>(c)].push_back(static_cast<int>(r));
  }
  if (client_values != nullptr) *client_values = std::move(distinct);
  return out;
}

nlohmann::json csv_problem_json(const std::string& path, const CsvProblemOptions& o) {
  validate(o);
  const Table t = read_table(path, o.delimiter);
  const bool logistic = o.kind == "logistic";
  const int label = column_of(t, o.label, "label");
  const int client_column =
      o.split == "by-column" ? column_of(t, o.client_column, "client_column") : -1;
  if (client_column == label) {
    throw InputError(fmt::format("client_column: \"{}\" is the label column", o.client_column));
  }
  const std::vector<int> columns = feature_columns(t, o, label, client_column);
  const auto n = static_cast<Eigen::Index>(t.rows.size());

  // Labels or targets, then the features (row by row, so the first bad cell is reported).
  std::array<std::string, 2> classes;
  Vector y(n);
  if (logistic) {
    y = logistic_labels(t, label, o.positive_label, &classes);
  } else {
    for (Eigen::Index r = 0; r < n; ++r)
      y(r) = number(t, t.rows[static_cast<std::size_t>(r)], label);
  }
  Matrix a(n, static_cast<Eigen::Index>(columns.size()));
  for (Eigen::Index r = 0; r < n; ++r) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      a(r, static_cast<Eigen::Index>(j)) =
          number(t, t.rows[static_cast<std::size_t>(r)], columns[j]);
    }
  }
  std::vector<std::string> names;
  names.reserve(columns.size() + 1);
  for (const int c : columns) names.push_back(t.names[static_cast<std::size_t>(c)]);
  std::vector<double> means, sds;
  if (o.standardise) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      auto column = a.col(static_cast<Eigen::Index>(j));
      const double mean = column.mean();
      const double sd = std::sqrt((column.array() - mean).square().mean());
      if (!(sd > 0)) {
        throw InputError(fmt::format(
            "features: column {} ({}) of {} is constant and cannot be standardised: leave it "
            "out of the features (the intercept column plays its part) or turn standardisation "
            "off",
            columns[j] + 1, names[j], t.path));
      }
      column = (column.array() - mean) / sd;
      means.push_back(mean);
      sds.push_back(sd);
    }
  }
  if (o.intercept) {
    a.conservativeResize(Eigen::NoChange, a.cols() + 1);
    a.col(a.cols() - 1).setOnes();
    names.emplace_back("intercept");
  }

  // The split.
  std::vector<std::vector<int>> assignment;
  std::vector<std::string> client_values;
  if (o.split == "by-column") {
    std::vector<std::string> values;
    for (const CsvLine& row : t.rows) {
      if (cell(row, client_column).empty()) {
        throw InputError(fmt::format("{}: empty client value", where(t, row, client_column)));
      }
      values.push_back(cell(row, client_column));
    }
    assignment = by_value_assignment(values, &client_values);
    if (o.clients != 0 && o.clients != static_cast<int>(assignment.size())) {
      throw InputError(fmt::format(
          "clients: {} given, but column {} ({}) holds {} distinct values, one client each "
          "(leave clients out with split by-column)",
          o.clients, client_column + 1, o.client_column, assignment.size()));
    }
  } else {
    require_rows_for_clients(t, o.clients);
    if (o.split == "iid") {
      assignment = iid_assignment(static_cast<int>(n), o.clients, o.seed);
    } else if (logistic) {
      std::vector<int> k(static_cast<std::size_t>(n));
      for (Eigen::Index r = 0; r < n; ++r) k[static_cast<std::size_t>(r)] = y(r) > 0 ? 1 : 0;
      assignment = dirichlet_class_assignment(k, 2, o.clients, o.alpha, o.seed);
    } else {
      assignment =
          dirichlet_class_assignment(target_bins(y, o.bins), o.bins, o.clients, o.alpha, o.seed);
    }
  }
  for (std::size_t c = 0; c < assignment.size(); ++c) {  // the splits above never leave one empty
    if (assignment[c].empty()) {
      throw InputError(fmt::format("clients: client {} receives no rows (use fewer clients)", c));
    }
  }

  nlohmann::json clients = nlohmann::json::array();
  for (const auto& rows : assignment) {
    nlohmann::json features = nlohmann::json::array(), labels = nlohmann::json::array();
    for (const int r : rows) {
      features.push_back(row_of(a, r));
      if (logistic) {
        labels.push_back(y(r) > 0 ? 1 : -1);
      } else {
        labels.push_back(y(r));
      }
    }
    clients.push_back(
        {{"features", std::move(features)}, {logistic ? "labels" : "targets", std::move(labels)}});
  }
  nlohmann::json generator = {{"name", "csv"},
                              {"source", std::filesystem::path(path).filename().string()},
                              {"rows", n},
                              {"kind", o.kind},
                              {"label", o.label},
                              {"features", names},
                              {"split", o.split},
                              {"clients", assignment.size()},
                              {"standardise", o.standardise},
                              {"intercept", o.intercept},
                              {"l2", o.l2},
                              {"batch_size", o.batch_size},
                              {"seed", o.seed}};
  if (o.standardise) {
    generator["feature_mean"] = means;
    generator["feature_std"] = sds;
  }
  if (logistic) generator["class_names"] = classes;
  if (o.split == "dirichlet") {
    generator["alpha"] = o.alpha;
    if (!logistic) generator["bins"] = o.bins;
  }
  if (o.split == "by-column") {
    generator["client_column"] = o.client_column;
    generator["client_values"] = client_values;
  }
  nlohmann::json problem = {{"kind", o.kind},
                            {"l2", o.l2},
                            {"batch_size", o.batch_size},
                            {"generator", std::move(generator)},
                            {"clients", std::move(clients)}};
  // What predict and simulate will check (a unique minimiser, stable mean maps, sizes), now.
  parse_problem(problem, fmt::format("{} (the problem built from it)", path));
  return problem;
}

}  // namespace fedverify::theory
