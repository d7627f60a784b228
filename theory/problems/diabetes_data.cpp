#include "theory/problems/diabetes_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "theory/base/input_error.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"

namespace fedverify::theory {
namespace {

constexpr int kDiabetesRows = 442;

// Row indices ordered by value, ties by row index (a stable sort of 0, …, n − 1).
std::vector<int> rank_order(const Vector& values) {
  std::vector<int> order(static_cast<std::size_t>(values.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values(a) < values(b); });
  return order;
}

int feature_index(const std::string& name) {
  for (std::size_t i = 0; i < kDiabetesFeatures.size(); ++i) {
    if (name == kDiabetesFeatures[i]) return static_cast<int>(i);
  }
  throw InputError(fmt::format(
      "generator.shift_feature: expected one of age, sex, bmi, bp, s1, …, s6, got \"{}\"", name));
}

std::vector<double> row_of(const Matrix& m, Eigen::Index r) {
  std::vector<double> out(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index j = 0; j < m.cols(); ++j) out[static_cast<std::size_t>(j)] = m(r, j);
  return out;
}

}  // namespace

std::string to_string(DiabetesSplit split) {
  switch (split) {
    case DiabetesSplit::iid:
      return "iid";
    case DiabetesSplit::dirichlet:
      return "dirichlet";
    case DiabetesSplit::covariate_shift:
      return "covariate-shift";
  }
  return "?";
}

DiabetesSplit parse_diabetes_split(const std::string& name) {
  for (const auto s :
       {DiabetesSplit::iid, DiabetesSplit::dirichlet, DiabetesSplit::covariate_shift}) {
    if (name == to_string(s)) return s;
  }
  throw InputError(
      fmt::format("generator.split: expected iid, dirichlet or covariate-shift, got \"{}\"", name));
}

void validate(const DiabetesOptions& o) {
  if (o.clients < 1 || o.clients > kDiabetesRows) {
    throw InputError(
        fmt::format("generator.clients: must lie in [1, {}], got {}", kDiabetesRows, o.clients));
  }
  if (!(o.alpha > 0) || !std::isfinite(o.alpha)) {
    throw InputError(fmt::format("generator.alpha: must be finite and > 0, got {}", o.alpha));
  }
  if (o.bins < 1 || o.bins > kDiabetesRows) {
    throw InputError(
        fmt::format("generator.bins: must lie in [1, {}], got {}", kDiabetesRows, o.bins));
  }
  feature_index(o.shift_feature);
  if (!std::isfinite(o.l2) || o.l2 < 0) {
    throw InputError(fmt::format("generator.l2: must be a finite number >= 0, got {}", o.l2));
  }
  if (o.batch_size < 1) {
    throw InputError(fmt::format("generator.batch_size: must be >= 1, got {}", o.batch_size));
  }
}

RegressionTable read_diabetes(const std::string& data_dir) {
  const std::string data_path = data_dir + "/diabetes_data_raw.csv.gz";
  const std::string target_path = data_dir + "/diabetes_target.csv.gz";
  RegressionTable t;
  t.features = read_number_table(data_path);
  const Matrix target = read_number_table(target_path);
  if (t.features.rows() != kDiabetesRows || t.features.cols() != 10) {
    throw InputError(fmt::format("{}: expected the 442 × 10 diabetes table, got {} × {}", data_path,
                                 t.features.rows(), t.features.cols()));
  }
  if (target.rows() != kDiabetesRows || target.cols() != 1) {
    throw InputError(fmt::format("{}: expected 442 targets in one column, got {} × {}", target_path,
                                 target.rows(), target.cols()));
  }
  t.targets = target.col(0);
  return t;
}

RegressionTable standardised(const RegressionTable& raw, bool standardise_target) {
  const auto zscore = [](auto column, const std::string& what) {
    const double mean = column.mean();
    const double sd = std::sqrt((column.array() - mean).square().mean());
    if (!(sd > 0))
      throw InputError(fmt::format("{}: constant column cannot be standardised", what));
    column = (column.array() - mean) / sd;
  };
  RegressionTable t = raw;
  for (Eigen::Index j = 0; j < t.features.cols(); ++j) {
    zscore(t.features.col(j), fmt::format("features column {}", j));
  }
  t.features.conservativeResize(Eigen::NoChange, t.features.cols() + 1);
  t.features.col(t.features.cols() - 1).setOnes();
  if (standardise_target) zscore(t.targets.col(0), "targets");
  return t;
}

std::vector<int> target_bins(const Vector& targets, int bins) {
  const std::vector<int> order = rank_order(targets);
  const auto n = static_cast<std::int64_t>(order.size());
  std::vector<int> bin(order.size());
  for (std::int64_t r = 0; r < n; ++r) {
    bin[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] =
        static_cast<int>(r * bins / n);
  }
  return bin;
}

std::vector<std::vector<int>> quantile_blocks(const Vector& values, int clients) {
  const std::vector<int> order = rank_order(values);
  const auto n = static_cast<std::int64_t>(order.size());
  std::vector<std::vector<int>> out(static_cast<std::size_t>(clients));
  for (int c = 0; c < clients; ++c) {
    auto& rows = out[static_cast<std::size_t>(c)];
    rows.assign(order.begin() + c * n / clients, order.begin() + (c + 1) * n / clients);
    std::sort(rows.begin(), rows.end());
  }
  return out;
}

std::vector<std::vector<int>> diabetes_assignment(const RegressionTable& raw,
                                                  const DiabetesOptions& o) {
  validate(o);
  const auto n = static_cast<int>(raw.targets.size());
  switch (o.split) {
    case DiabetesSplit::iid:
      return iid_assignment(n, o.clients, o.seed);
    case DiabetesSplit::dirichlet:
      return dirichlet_class_assignment(target_bins(raw.targets, o.bins), o.bins, o.clients,
                                        o.alpha, o.seed);
    case DiabetesSplit::covariate_shift:
      return quantile_blocks(raw.features.col(feature_index(o.shift_feature)), o.clients);
  }
  return {};
}

nlohmann::json diabetes_least_squares_json(const DiabetesOptions& o) {
  validate(o);
  const RegressionTable raw = read_diabetes(o.data_dir);
  const RegressionTable table = standardised(raw, o.standardise_target);
  nlohmann::json clients = nlohmann::json::array();
  for (const auto& rows : diabetes_assignment(raw, o)) {
    nlohmann::json features = nlohmann::json::array();
    std::vector<double> targets;
    for (const int r : rows) {
      features.push_back(row_of(table.features, r));
      targets.push_back(table.targets(r));
    }
    clients.push_back({{"features", std::move(features)}, {"targets", std::move(targets)}});
  }
  nlohmann::json generator = {{"name", "diabetes"},
                              {"clients", o.clients},
                              {"split", to_string(o.split)},
                              {"alpha", o.alpha},
                              {"bins", o.bins},
                              {"shift_feature", o.shift_feature},
                              {"l2", o.l2},
                              {"batch_size", o.batch_size},
                              {"standardise_target", o.standardise_target},
                              {"seed", o.seed}};
  return {{"kind", "least-squares"},
          {"l2", o.l2},
          {"batch_size", o.batch_size},
          {"generator", std::move(generator)},
          {"clients", std::move(clients)}};
}

DiabetesOptions diabetes_preset_options() {
  DiabetesOptions o;  // N = 10, Dirichlet(0.5) over 5 target bins, λ = 0.1, B = 1
  o.seed = 20261127;
  return o;
}

nlohmann::json diabetes_preset() { return diabetes_least_squares_json(diabetes_preset_options()); }

}  // namespace fedverify::theory
