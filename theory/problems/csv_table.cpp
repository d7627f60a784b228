// The CSV line reader (csv_table.hpp) and the labelled-table reader declared in logistic_data.hpp
// (load_csv_table), which reads its lines with it.
#include "theory/problems/csv_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/logistic_data.hpp"

namespace fedverify::theory {

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

}  // namespace

std::optional<double> parse_csv_number(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::vector<CsvLine> read_csv_lines(const std::string& path, char delimiter) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  std::vector<CsvLine> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 BOM
    if (trim(text).empty()) continue;
    int bad_column = 0;
    auto fields = split_fields(text, delimiter, &bad_column);
    if (!fields) {
      throw InputError(
          fmt::format("{}: line {}, column {}: malformed quoted field", path, number, bad_column));
    }
    lines.push_back({number, std::move(*fields)});
  }
  if (lines.empty()) throw InputError(fmt::format("{}: the file holds no rows", path));
  return lines;
}

LabelledTable load_csv_table(const std::string& path, const CsvOptions& options) {
  auto where = [&](int line, int column, const std::string& name) {
    return fmt::format("{}: line {}, column {} ({})", path, line, column, name);
  };
  // 1. All non-blank lines, split into fields.
  const std::vector<CsvLine> lines = read_csv_lines(path, options.delimiter);

  // 2. Header: column names, the number of columns, the label column.
  LabelledTable table;
  std::vector<std::string> names;
  std::size_t first_data = 0;
  std::optional<long> expected_rows;
  int label_column = -1;
  if (options.header == CsvHeader::sklearn_counts) {
    const CsvLine& head = lines[0];
    const auto count = [&](std::size_t k, const char* what) {
      const auto v = k < head.fields.size() ? parse_csv_number(head.fields[k]) : std::nullopt;
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
    const CsvLine& line = lines[first_data + r];
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
      const auto value = parse_csv_number(field);
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
  const auto a = parse_csv_number(negative), b = parse_csv_number(positive);
  if (options.header == CsvHeader::sklearn_counts) {
    for (const auto& [value, line] : classes) {
      const auto index = parse_csv_number(value);
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
