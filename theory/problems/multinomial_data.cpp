#include "theory/problems/multinomial_data.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/logistic_data.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;

// The `chain` slot of this file's problem_generator streams (logistic_data.cpp uses 0–3).
enum Role : std::uint64_t {
  kSplitShuffle = 10,    // the train/validation/test permutation
  kSyntheticModel = 11,  // u_k, B_k, W_k, b_k, v_k of client k
  kSyntheticCount = 12,  // n_k of client k
  kSyntheticRows = 13,   // the features of client k
};

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = line.find(',', begin);
    out.push_back(line.substr(begin, comma == std::string_view::npos ? comma : comma - begin));
    if (comma == std::string_view::npos) return out;
    begin = comma + 1;
  }
}

double parse_number(std::string_view field, const std::string& where) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t' || field.back() == '\r')) {
    field.remove_suffix(1);
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v)) {
    throw InputError(
        fmt::format("{}: \"{}\" is not a finite number", where, std::string(field.substr(0, 40))));
  }
  return v;
}

// Calls on_line(number, line) for every non-empty line (end-of-line characters removed) of a
// gzip-compressed or plain text file (zlib reads both); numbers count every line from 1. Throws
// InputError "PATH: …" when the file cannot be opened or its compressed stream is corrupt.
template <class OnLine>
void for_each_line(const std::string& path, OnLine on_line) {
  const std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw InputError(fmt::format("{}: cannot open the table", path));
  std::string line;
  std::vector<char> buffer(1 << 16);
  int line_number = 0;
  for (;;) {
    line.clear();
    bool got = false;
    while (gzgets(file.get(), buffer.data(), static_cast<int>(buffer.size())) != nullptr) {
      got = true;
      line += buffer.data();
      if (!line.empty() && line.back() == '\n') break;
    }
    int error = Z_OK;
    gzerror(file.get(), &error);
    if (error != Z_OK && error != Z_STREAM_END) {
      throw InputError(fmt::format("{}: line {}: the file is corrupt (zlib error {})", path,
                                   line_number + 1, error));
    }
    if (!got) break;
    ++line_number;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    on_line(line_number, line);
  }
}

}  // namespace

ClassificationData read_class_table(const std::string& path, TableHeader header) {
  std::vector<std::vector<double>> rows;
  std::vector<int> labels;
  long declared_rows = -1;
  long declared_features = -1;
  int declared_classes = 0;
  for_each_line(path, [&](int line_number, const std::string& line) {
    const std::string where = fmt::format("{}: line {}", path, line_number);
    const auto fields = split_commas(line);
    if (header == TableHeader::sklearn_counts && declared_rows < 0) {
      if (fields.size() < 4) {
        throw InputError(fmt::format(
            "{}: expected \"n_samples,n_features,class names…\" with at least two classes", where));
      }
      declared_rows = std::lround(parse_number(fields[0], where));
      declared_features = std::lround(parse_number(fields[1], where));
      declared_classes = static_cast<int>(fields.size()) - 2;
      return;
    }
    if (fields.size() < 2) throw InputError(fmt::format("{}: need features and a label", where));
    if (!rows.empty() && fields.size() != rows[0].size() + 1) {
      throw InputError(fmt::format("{}: {} fields, the first data line has {}", where,
                                   fields.size(), rows[0].size() + 1));
    }
    std::vector<double> row;
    row.reserve(fields.size() - 1);
    for (std::size_t f = 0; f + 1 < fields.size(); ++f) {
      row.push_back(parse_number(fields[f], fmt::format("{}, field {}", where, f + 1)));
    }
    const double label = parse_number(fields.back(), fmt::format("{}, label", where));
    if (label < 0 || label != std::floor(label) || label > 1e6) {
      throw InputError(
          fmt::format("{}: the label {} is not a class index (integer >= 0)", where, label));
    }
    rows.push_back(std::move(row));
    labels.push_back(static_cast<int>(label));
  });
  if (rows.empty()) throw InputError(fmt::format("{}: the table holds no data line", path));
  ClassificationData out;
  out.features.resize(static_cast<Eigen::Index>(rows.size()),
                      static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t f = 0; f < rows[r].size(); ++f) {
      out.features(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(f)) = rows[r][f];
    }
  }
  out.labels = std::move(labels);
  int top = 0;
  for (const int y : out.labels) top = std::max(top, y);
  out.classes = top + 1;
  if (header == TableHeader::sklearn_counts) {
    if (declared_rows != static_cast<long>(rows.size()) ||
        declared_features != static_cast<long>(rows[0].size())) {
      throw InputError(fmt::format("{}: the header declares {} × {}, the data are {} × {}", path,
                                   declared_rows, declared_features, rows.size(), rows[0].size()));
    }
    if (out.classes > declared_classes) {
      throw InputError(
          fmt::format("{}: label {} but the header names {} classes", path, top, declared_classes));
    }
    out.classes = declared_classes;
  }
  if (out.classes < 2) throw InputError(fmt::format("{}: the table holds a single class", path));
  return out;
}

Matrix read_number_table(const std::string& path) {
  std::vector<std::vector<double>> rows;
  for_each_line(path, [&](int line_number, const std::string& line) {
    std::vector<double> row;
    std::size_t begin = 0;
    bool after_comma = false;
    for (int field = 1;; ++field) {
      begin = line.find_first_not_of(" \t", begin);
      if (begin == std::string::npos) {
        if (after_comma) {
          throw InputError(fmt::format("{}: line {}, field {}: empty field after a comma", path,
                                       line_number, field));
        }
        break;
      }
      const std::size_t end = std::min(line.find_first_of(" \t,", begin), line.size());
      row.push_back(parse_number(std::string_view(line).substr(begin, end - begin),
                                 fmt::format("{}: line {}, field {}", path, line_number, field)));
      // The separator: blanks, or one comma with optional blanks around it.
      begin = end;
      const std::size_t next = line.find_first_not_of(" \t", begin);
      after_comma = next != std::string::npos && line[next] == ',';
      if (after_comma) begin = next + 1;
    }
    if (row.empty()) return;  // a line of blanks
    if (!rows.empty() && row.size() != rows[0].size()) {
      throw InputError(fmt::format("{}: line {}: {} fields, the first line has {}", path,
                                   line_number, row.size(), rows[0].size()));
    }
    rows.push_back(std::move(row));
  });
  if (rows.empty()) throw InputError(fmt::format("{}: the table holds no data line", path));
  Matrix out(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t f = 0; f < rows[r].size(); ++f) {
      out(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(f)) = rows[r][f];
    }
  }
  return out;
}

std::string sklearn_table_path(const std::string& file) {
  return std::string(kSklearnDataDir) + "/" + file;
}

ClassificationData read_digits(const std::string& path) {
  return read_class_table(path, TableHeader::none);
}
ClassificationData read_breast_cancer(const std::string& path) {
  return read_class_table(path, TableHeader::sklearn_counts);
}

DataSplit split_rows(const ClassificationData& data, double train, double validation,
                     std::uint64_t seed) {
  if (!(train > 0 && validation > 0 && train + validation < 1)) {
    throw InputError(fmt::format(
        "split: fractions must be > 0 with train + validation < 1, got train {} validation {}",
        train, validation));
  }
  const int n = data.samples();
  const int n_train = static_cast<int>(std::floor(n * train));
  const int n_validation = static_cast<int>(std::floor(n * validation));
  if (n_train < 1 || n_validation < 1 || n - n_train - n_validation < 1) {
    throw InputError(fmt::format("split: {} rows leave a part empty", n));
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
  Stream stream(seed, Purpose::problem_generator, kSplitShuffle);
  shuffle(order, stream);
  const std::span<const int> all(order);
  return {data.subset(all.subspan(0, static_cast<std::size_t>(n_train))),
          data.subset(all.subspan(static_cast<std::size_t>(n_train),
                                  static_cast<std::size_t>(n_validation))),
          data.subset(all.subspan(static_cast<std::size_t>(n_train) +
                                  static_cast<std::size_t>(n_validation)))};
}

void add_intercept(ClassificationData& data) {
  data.features.conservativeResize(Eigen::NoChange, data.features.cols() + 1);
  data.features.col(data.features.cols() - 1).setOnes();
}

void standardise(DataSplit& split) {
  const Matrix& a = split.train.features;
  const Eigen::RowVectorXd mean = a.colwise().mean();
  Eigen::RowVectorXd scale = ((a.rowwise() - mean).array().square().colwise().mean()).sqrt();
  for (Eigen::Index f = 0; f < scale.size(); ++f) {
    if (!(scale(f) > 0)) scale(f) = 1.0;  // constant on the training rows: centred only
  }
  for (ClassificationData* part : {&split.train, &split.validation, &split.test}) {
    part->features = ((part->features.rowwise() - mean).array().rowwise() / scale.array()).matrix();
    add_intercept(*part);
  }
}

std::vector<ClassificationData> client_tables(const ClassificationData& data,
                                              const std::vector<std::vector<int>>& assignment) {
  std::vector<ClassificationData> out;
  out.reserve(assignment.size());
  for (const auto& rows : assignment) out.push_back(data.subset(rows));
  return out;
}

std::vector<ClassificationData> synthetic_fedprox(const SyntheticOptions& o) {
  if (!std::isfinite(o.alpha) || o.alpha < 0) {
    throw InputError(fmt::format("alpha: must be finite and >= 0, got {}", o.alpha));
  }
  if (!std::isfinite(o.beta) || o.beta < 0) {
    throw InputError(fmt::format("beta: must be finite and >= 0, got {}", o.beta));
  }
  if (o.clients < 1) throw InputError(fmt::format("clients: must be >= 1, got {}", o.clients));
  if (o.max_samples < 50) {
    throw InputError(fmt::format("max_samples: must be >= 50, got {}", o.max_samples));
  }
  constexpr int p = kSyntheticFeatures;
  constexpr int k = kSyntheticClasses;
  Vector sd(p);
  for (int j = 0; j < p; ++j) sd(j) = std::pow(static_cast<double>(j + 1), -0.6);  // √(j^−1.2)
  std::vector<ClassificationData> out;
  out.reserve(static_cast<std::size_t>(o.clients));
  for (int c = 0; c < o.clients; ++c) {
    const auto client = static_cast<std::uint64_t>(c);
    Stream model(o.seed, Purpose::problem_generator, kSyntheticModel, client);
    const double u = o.alpha * model.normal();
    const double b_mean = o.beta * model.normal();
    Matrix w(p, k);
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = u + model.normal();
    Eigen::RowVectorXd bias(k);
    for (int i = 0; i < k; ++i) bias(i) = u + model.normal();
    Eigen::RowVectorXd v(p);
    for (int i = 0; i < p; ++i) v(i) = b_mean + model.normal();

    Stream count(o.seed, Purpose::problem_generator, kSyntheticCount, client);
    const double lognormal = std::exp(4.0 + 2.0 * count.normal());
    const int n = static_cast<int>(std::min<double>(o.max_samples, 50.0 + std::floor(lognormal)));

    Stream rows(o.seed, Purpose::problem_generator, kSyntheticRows, client);
    ClassificationData data{Matrix(n, p), std::vector<int>(static_cast<std::size_t>(n)), k};
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < p; ++i) data.features(j, i) = v(i) + sd(i) * rows.normal();
      Eigen::Index best = 0;
      (data.features.row(j) * w + bias).maxCoeff(&best);
      data.labels[static_cast<std::size_t>(j)] = static_cast<int>(best);
    }
    out.push_back(std::move(data));
  }
  return out;
}

}  // namespace fedverify::theory
