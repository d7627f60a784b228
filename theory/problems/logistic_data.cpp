#include "theory/problems/logistic_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

using estimators::Purpose;
using estimators::Stream;

namespace {

// The `chain` slot of a problem_generator stream says which part of the data it draws, so the
// parts never share numbers and each is a function of (seed, role, client) only.
enum Role : std::uint64_t {
  kTrueDirection = 0,  // u, shared by all clients
  kClientData = 1,     // m_c, then the features of client c
  kShuffle = 2,        // permutations of pooled rows
  kDirichlet = 3,      // Dirichlet proportions; the client slot holds the class (binary: 0 is −1)
};

void require_finite(double value, const char* field) {
  if (!std::isfinite(value))
    throw InputError(fmt::format("{}: must be finite, got {}", field, value));
}

void validate_split(int samples, int clients) {
  if (clients < 1) throw InputError(fmt::format("clients: must be >= 1, got {}", clients));
  if (samples < clients) {
    throw InputError(fmt::format("clients: {} clients cannot each receive a sample from {} rows",
                                 clients, samples));
  }
}

}  // namespace

void shuffle(std::vector<int>& v, Stream& stream) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(stream.below(i));
    std::swap(v[i - 1], v[j]);
  }
}

// --- Synthetic generator -----------------------------------------------------------------------

void validate(const LogisticGeneratorOptions& o) {
  if (o.dim < 1) throw InputError(fmt::format("dim: must be >= 1, got {}", o.dim));
  if (o.clients < 1) throw InputError(fmt::format("clients: must be >= 1, got {}", o.clients));
  if (o.samples_per_client < 1) {
    throw InputError(fmt::format("samples_per_client: must be >= 1, got {}", o.samples_per_client));
  }
  require_finite(o.l2, "l2");
  if (o.l2 < 0) throw InputError(fmt::format("l2: must be >= 0, got {}", o.l2));
  if (o.batch_size < 1) {
    throw InputError(fmt::format("batch_size: must be >= 1, got {}", o.batch_size));
  }
  require_finite(o.feature_shift, "feature_shift");
  if (o.feature_shift < 0) {
    throw InputError(fmt::format("feature_shift: must be >= 0, got {}", o.feature_shift));
  }
  if (!(o.label_skew >= 0 && o.label_skew <= 1)) {
    throw InputError(fmt::format("label_skew: must lie in [0, 1], got {}", o.label_skew));
  }
  require_finite(o.separation, "separation");
  if (o.separation < 0) {
    throw InputError(fmt::format("separation: must be >= 0, got {}", o.separation));
  }
}

Vector true_parameter(const LogisticGeneratorOptions& o) {
  validate(o);
  // u uniform on the sphere: a normalised standard Gaussian vector (redrawn if it is 0).
  Stream stream(o.seed, Purpose::problem_generator, kTrueDirection);
  Vector u(o.dim);
  do {
    for (int i = 0; i < o.dim; ++i) u(i) = stream.normal();
  } while (u.norm() == 0.0);
  return o.separation * u.normalized();
}

LogisticProblem generate_logistic(const LogisticGeneratorOptions& o) {
  const Vector half_signal = 0.5 * true_parameter(o);  // validates o
  const int d = o.dim;
  const int n = o.samples_per_client;

  std::vector<LogisticClient> clients(static_cast<std::size_t>(o.clients));
  for (int c = 0; c < o.clients; ++c) {
    Stream stream(o.seed, Purpose::problem_generator, kClientData, static_cast<std::uint64_t>(c));
    Vector shift(d);
    for (int i = 0; i < d; ++i) shift(i) = o.feature_shift * stream.normal();

    // π_c = ½ + ½ · label_skew · s_c, n⁺_c = ⌊n π_c + ½⌋.
    const double majority_sign = (c % 2 == 0) ? 1.0 : -1.0;
    const double positive_fraction = 0.5 + 0.5 * o.label_skew * majority_sign;
    const int positives =
        std::clamp(static_cast<int>(std::floor(n * positive_fraction + 0.5)), 0, n);

    LogisticClient& client = clients[static_cast<std::size_t>(c)];
    client.features.resize(n, d);
    client.labels.resize(n);
    for (int j = 0; j < n; ++j) {
      const double y = j < positives ? 1.0 : -1.0;
      client.labels(j) = y;
      for (int i = 0; i < d; ++i) {
        client.features(j, i) = shift(i) + y * half_signal(i) + stream.normal();
      }
    }
  }
  return LogisticProblem(std::move(clients), o.l2, o.batch_size);
}

// --- Gamma and Dirichlet -----------------------------------------------------------------------

double log_gamma_variate(double shape, Stream& stream) {
  if (!(shape > 0) || !std::isfinite(shape)) {
    throw InputError(fmt::format("alpha: Gamma shape must be finite and > 0, got {}", shape));
  }
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^{1/a}   (Marsaglia & Tsang 2000, §6).
    const double log_g = log_gamma_variate(shape + 1.0, stream);
    return log_g + std::log(stream.uniform()) / shape;
  }
  const double dd = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * dd);
  for (;;) {
    const double z = stream.normal();
    const double t = 1.0 + c * z;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double log_u = std::log(stream.uniform());
    // Acceptance test log U < ½z² + d − d v + d log v.
    if (log_u < 0.5 * z * z + dd - dd * v + dd * std::log(v)) return std::log(dd) + std::log(v);
  }
}

std::vector<std::vector<int>> iid_assignment(int samples, int clients, std::uint64_t seed) {
  validate_split(samples, clients);
  std::vector<int> order(static_cast<std::size_t>(samples));
  std::iota(order.begin(), order.end(), 0);
  Stream stream(seed, Purpose::problem_generator, kShuffle);
  shuffle(order, stream);
  std::vector<std::vector<int>> out(static_cast<std::size_t>(clients));
  // Client c receives rows [⌊c n / N⌋, ⌊(c + 1) n / N⌋) of the permutation.
  for (int c = 0; c < clients; ++c) {
    const auto begin = static_cast<std::int64_t>(c) * samples / clients;
    const auto end = static_cast<std::int64_t>(c + 1) * samples / clients;
    auto& rows = out[static_cast<std::size_t>(c)];
    rows.assign(order.begin() + begin, order.begin() + end);
    std::sort(rows.begin(), rows.end());
  }
  return out;
}

std::vector<std::vector<int>> dirichlet_assignment(const Vector& labels, int clients, double alpha,
                                                   std::uint64_t seed) {
  std::vector<int> classes(static_cast<std::size_t>(labels.size()));
  for (Eigen::Index j = 0; j < labels.size(); ++j) {
    if (labels(j) != 1.0 && labels(j) != -1.0) {
      throw InputError(fmt::format("labels[{}]: must be 1 or -1, got {}", j, labels(j)));
    }
    classes[static_cast<std::size_t>(j)] = labels(j) == 1.0 ? 1 : 0;
  }
  return dirichlet_class_assignment(classes, 2, clients, alpha, seed);
}

std::vector<std::vector<int>> dirichlet_class_assignment(const std::vector<int>& classes,
                                                         int num_classes, int clients, double alpha,
                                                         std::uint64_t seed) {
  const int samples = static_cast<int>(classes.size());
  validate_split(samples, clients);
  if (!(alpha > 0) || !std::isfinite(alpha)) {
    throw InputError(fmt::format("alpha: must be finite and > 0, got {}", alpha));
  }
  for (int j = 0; j < samples; ++j) {
    if (classes[static_cast<std::size_t>(j)] < 0 ||
        classes[static_cast<std::size_t>(j)] >= num_classes) {
      throw InputError(fmt::format("labels[{}]: must be a class in [0, {}), got {}", j, num_classes,
                                   classes[static_cast<std::size_t>(j)]));
    }
  }
  std::vector<std::vector<int>> out(static_cast<std::size_t>(clients));
  Stream shuffle_stream(seed, Purpose::problem_generator, kShuffle);
  for (int k = 0; k < num_classes; ++k) {
    std::vector<int> rows;
    for (int j = 0; j < samples; ++j) {
      if (classes[static_cast<std::size_t>(j)] == k) rows.push_back(j);
    }
    shuffle(rows, shuffle_stream);

    // p ~ Dirichlet(α 1_N) as normalised Gamma(α) variates, normalised in log space.
    Stream stream(seed, Purpose::problem_generator, kDirichlet, static_cast<std::uint64_t>(k));
    std::vector<double> log_g(static_cast<std::size_t>(clients));
    for (auto& lg : log_g) lg = log_gamma_variate(alpha, stream);
    const double top = *std::max_element(log_g.begin(), log_g.end());
    std::vector<double> p(log_g.size());
    for (std::size_t c = 0; c < p.size(); ++c) p[c] = std::exp(log_g[c] - top);
    const double total = std::accumulate(p.begin(), p.end(), 0.0);

    // Client c receives the class-k rows [cut_{c−1}, cut_c), cut_c = ⌊n_k Σ_{c'≤c} p_c' + ½⌋.
    const auto nk = static_cast<double>(rows.size());
    double cumulative = 0.0;
    std::size_t begin = 0;
    for (int c = 0; c < clients; ++c) {
      cumulative += p[static_cast<std::size_t>(c)] / total;
      const std::size_t end =
          c + 1 == clients
              ? rows.size()
              : std::min(rows.size(), static_cast<std::size_t>(std::floor(nk * cumulative + 0.5)));
      auto& mine = out[static_cast<std::size_t>(c)];
      mine.insert(mine.end(), rows.begin() + static_cast<std::ptrdiff_t>(begin),
                  rows.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
      begin = std::max(begin, end);
    }
  }

  // Non-emptiness repair: an empty client takes one row from the largest client (lowest index
  // on ties), which holds ≥ 2 rows because rows ≥ clients.
  for (auto& mine : out) {
    if (!mine.empty()) continue;
    auto donor = std::max_element(out.begin(), out.end(),
                                  [](const auto& a, const auto& b) { return a.size() < b.size(); });
    mine.push_back(donor->back());
    donor->pop_back();
  }
  for (auto& mine : out) std::sort(mine.begin(), mine.end());
  return out;
}

LogisticProblem split_by_assignment(const Matrix& features, const Vector& labels,
                                    const std::vector<std::vector<int>>& assignment, double l2,
                                    int batch_size) {
  if (labels.size() != features.rows()) {
    throw InputError(
        fmt::format("labels: {} labels for {} feature rows", labels.size(), features.rows()));
  }
  std::vector<LogisticClient> clients;
  clients.reserve(assignment.size());
  for (std::size_t c = 0; c < assignment.size(); ++c) {
    const auto& rows = assignment[c];
    LogisticClient client;
    client.features.resize(static_cast<Eigen::Index>(rows.size()), features.cols());
    client.labels.resize(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] < 0 || rows[r] >= features.rows()) {
        throw InputError(fmt::format("assignment[{}][{}]: row {} out of range [0, {})", c, r,
                                     rows[r], features.rows()));
      }
      client.features.row(static_cast<Eigen::Index>(r)) = features.row(rows[r]);
      client.labels(static_cast<Eigen::Index>(r)) = labels(rows[r]);
    }
    if (rows.empty()) throw InputError(fmt::format("assignment[{}]: client has no samples", c));
    clients.push_back(std::move(client));
  }
  return LogisticProblem(std::move(clients), l2, batch_size);
}

LogisticProblem partition_iid(const Matrix& features, const Vector& labels, int clients,
                              std::uint64_t seed, double l2, int batch_size) {
  return split_by_assignment(features, labels,
                             iid_assignment(static_cast<int>(features.rows()), clients, seed), l2,
                             batch_size);
}

LogisticProblem partition_dirichlet(const Matrix& features, const Vector& labels, int clients,
                                    double alpha, std::uint64_t seed, double l2, int batch_size) {
  if (labels.size() != features.rows()) {
    throw InputError(
        fmt::format("labels: {} labels for {} feature rows", labels.size(), features.rows()));
  }
  return split_by_assignment(features, labels, dirichlet_assignment(labels, clients, alpha, seed),
                             l2, batch_size);
}

// --- CSV ---------------------------------------------------------------------------------------

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// Splits one line into fields; a field may be enclosed in double quotes ("" inside quotes is a
// literal quote). Returns nullopt, with the 1-based column in *bad_column, for an unterminated
// quote or text after a closing quote.
std::optional<std::vector<std::string>> split_fields(const std::string& line, char delimiter,
                                                     int* bad_column) {
  std::vector<std::string> fields;
  std::string field;
  std::size_t i = 0;
  for (;;) {
    field.clear();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (!closed || (i < line.size() && line[i] != delimiter)) {
        *bad_column = static_cast<int>(fields.size()) + 1;
        return std::nullopt;
      }
    } else {
      const std::size_t end = std::min(line.find(delimiter, i), line.size());
      field = std::string(trim(std::string_view(line).substr(i, end - i)));
      i = end;
    }
    fields.push_back(field);
    if (i >= line.size()) return fields;
    ++i;  // the delimiter
  }
}

std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

struct Line {
  int number;  // 1-based line number in the file
  std::vector<std::string> fields;
};

}  // namespace

LabelledTable load_csv_table(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  auto where = [&](int line, int column, const std::string& name) {
    return fmt::format("{}: line {}, column {} ({})", path, line, column, name);
  };

  // 1. Read all non-blank lines, split into fields.
  std::vector<Line> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (trim(text).empty()) continue;
    int bad_column = 0;
    auto fields = split_fields(text, options.delimiter, &bad_column);
    if (!fields) {
      throw InputError(
          fmt::format("{}: line {}, column {}: malformed quoted field", path, number, bad_column));
    }
    lines.push_back({number, std::move(*fields)});
  }
  if (lines.empty()) throw InputError(fmt::format("{}: the file holds no rows", path));

  // 2. Header: column names, the number of columns, the label column.
  LabelledTable table;
  std::vector<std::string> names;
  std::size_t first_data = 0;
  std::optional<long> expected_rows;
  int label_column = -1;
  if (options.header == CsvHeader::sklearn_counts) {
    const Line& head = lines[0];
    const auto count = [&](std::size_t k, const char* what) {
      const auto v = k < head.fields.size() ? parse_number(head.fields[k]) : std::nullopt;
      if (!v || *v < 1 || *v != std::floor(*v)) {
        throw InputError(fmt::format(
            "{}: expected a positive integer ({}) in the scikit-learn header \"n_samples,"
            "n_features,class names…\"",
            where(head.number, static_cast<int>(k) + 1, what), what));
      }
      return static_cast<long>(*v);
    };
    expected_rows = count(0, "n_samples");
    const long features = count(1, "n_features");
    for (long i = 0; i < features; ++i) names.push_back(fmt::format("x{}", i));
    names.push_back("target");
    if (!options.label_name.empty() ||
        (options.label_index != -1 && options.label_index != features)) {
      throw InputError(fmt::format(
          "{}: label column: the scikit-learn format keeps the label in the last column", path));
    }
    label_column = static_cast<int>(features);
    first_data = 1;
  } else if (options.header == CsvHeader::names) {
    names = lines[0].fields;
    first_data = 1;
  } else {
    for (std::size_t i = 0; i < lines[0].fields.size(); ++i) names.push_back(fmt::format("x{}", i));
  }
  const int columns = static_cast<int>(names.size());
  if (columns < 2) {
    throw InputError(fmt::format("{}: line {}: need at least one feature and one label column",
                                 path, lines[0].number));
  }
  if (label_column < 0) {
    if (!options.label_name.empty()) {
      if (options.header != CsvHeader::names) {
        throw InputError(fmt::format("{}: label_name \"{}\" needs a header row of column names",
                                     path, options.label_name));
      }
      const auto it = std::find(names.begin(), names.end(), options.label_name);
      if (it == names.end()) {
        throw InputError(fmt::format("{}: line {}: no column named \"{}\"", path, lines[0].number,
                                     options.label_name));
      }
      label_column = static_cast<int>(it - names.begin());
    } else {
      label_column = options.label_index == -1 ? columns - 1 : options.label_index;
      if (label_column < 0 || label_column >= columns) {
        throw InputError(fmt::format("{}: label_index {} outside the {} columns", path,
                                     options.label_index, columns));
      }
    }
  }

  // 3. Data rows.
  const std::size_t rows = lines.size() - first_data;
  if (rows == 0) throw InputError(fmt::format("{}: no data rows", path));
  if (expected_rows && *expected_rows != static_cast<long>(rows)) {
    throw InputError(fmt::format("{}: line {}: header announces {} samples, the file holds {}",
                                 path, lines[0].number, *expected_rows, rows));
  }
  const int d = columns - 1;
  table.features.resize(static_cast<Eigen::Index>(rows), d);
  std::vector<std::string> raw_labels(rows);
  std::vector<std::pair<std::string, int>> classes;  // value, line of first occurrence
  for (std::size_t r = 0; r < rows; ++r) {
    const Line& line = lines[first_data + r];
    if (static_cast<int>(line.fields.size()) != columns) {
      throw InputError(fmt::format("{}: line {}: expected {} fields, found {}", path, line.number,
                                   columns, line.fields.size()));
    }
    int feature = 0;
    for (int col = 0; col < columns; ++col) {
      const std::string& field = line.fields[static_cast<std::size_t>(col)];
      if (col == label_column) {
        if (field.empty()) {
          throw InputError(fmt::format("{}: empty label", where(line.number, col + 1, names[col])));
        }
        raw_labels[r] = field;
        const bool seen = std::any_of(classes.begin(), classes.end(),
                                      [&](const auto& c) { return c.first == field; });
        if (!seen) {
          if (classes.size() == 2) {
            throw InputError(fmt::format(
                "{}: a third class \"{}\" (after \"{}\" and \"{}\"); logistic labels need "
                "exactly two classes",
                where(line.number, col + 1, names[col]), field, classes[0].first,
                classes[1].first));
          }
          classes.emplace_back(field, line.number);
        }
        continue;
      }
      const auto value = parse_number(field);
      if (!value || !std::isfinite(*value)) {
        throw InputError(fmt::format("{}: \"{}\" is not a finite number",
                                     where(line.number, col + 1, names[col]), field));
      }
      table.features(static_cast<Eigen::Index>(r), feature++) = *value;
    }
  }
  for (int col = 0; col < columns; ++col) {
    if (col != label_column) table.feature_names.push_back(names[static_cast<std::size_t>(col)]);
  }
  const std::string label_where =
      fmt::format("{}: column {} ({})", path, label_column + 1, names[label_column]);
  if (classes.size() != 2) {
    throw InputError(fmt::format("{}: logistic labels need exactly two classes, found only \"{}\"",
                                 label_where, classes[0].first));
  }

  // 4. Label mapping to ±1.
  std::string negative = classes[0].first, positive = classes[1].first;
  const auto a = parse_number(negative), b = parse_number(positive);
  if (options.header == CsvHeader::sklearn_counts) {
    for (const auto& [value, line] : classes) {
      const auto index = parse_number(value);
      if (!index || (*index != 0 && *index != 1)) {
        throw InputError(fmt::format(
            "{}: the scikit-learn format stores class indices 0 and 1, found \"{}\"",
            where(line, label_column + 1, names[static_cast<std::size_t>(label_column)]), value));
      }
    }
    if (*a == *b) {
      throw InputError(fmt::format("{}: \"{}\" and \"{}\" spell the same class index", label_where,
                                   negative, positive));
    }
    if (*a == 1) std::swap(negative, positive);
    const auto& head = lines[0].fields;
    table.class_names = {head.size() > 2 ? head[2] : negative,
                         head.size() > 3 ? head[3] : positive};
  } else if (!options.positive_label.empty()) {
    if (options.positive_label == negative) {
      std::swap(negative, positive);
    } else if (options.positive_label != positive) {
      throw InputError(fmt::format("{}: positive_label \"{}\" is not one of \"{}\", \"{}\"",
                                   label_where, options.positive_label, negative, positive));
    }
    table.class_names = {negative, positive};
  } else {
    // Numerically sorted if both are numbers ({0, 1} and {−1, 1} included), else lexicographic.
    if ((a && b) ? (*a > *b) : (negative > positive)) std::swap(negative, positive);
    table.class_names = {negative, positive};
  }
  table.labels.resize(static_cast<Eigen::Index>(rows));
  for (std::size_t r = 0; r < rows; ++r) {
    table.labels(static_cast<Eigen::Index>(r)) = raw_labels[r] == positive ? 1.0 : -1.0;
  }

  // 5. Standardisation (z-score, population std) and intercept.
  if (options.standardize) {
    for (int i = 0; i < d; ++i) {
      auto column = table.features.col(i);
      if ((column.array() == column(0)).all()) {
        const int file_column = i < label_column ? i + 1 : i + 2;
        throw InputError(fmt::format("{}: column {} ({}): constant column cannot be standardised",
                                     path, file_column, table.feature_names[i]));
      }
      const double mean = column.mean();
      const double sd = std::sqrt((column.array() - mean).square().mean());
      column = (column.array() - mean) / sd;
    }
  }
  if (options.intercept) {
    table.features.conservativeResize(Eigen::NoChange, d + 1);
    table.features.col(d).setOnes();
    table.feature_names.push_back("intercept");
  }
  return table;
}

}  // namespace fedverify::theory
