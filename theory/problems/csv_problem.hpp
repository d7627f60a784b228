// Problem files from a CSV table (`fedverify problem from-csv`, fedverify.problem_from_csv;
// docs/PROBLEM_FORMATS.md, "From a CSV file"): a `logistic` or `least-squares` problem whose
// clients hold the rows of the table, split iid, by Dirichlet label proportions or by the values
// of a column. One implementation behind the command line and Python.
//
// The table has a header row of distinct, non-empty column names; every data row has as many
// fields. The label column holds two distinct values (logistic: mapped to ±1) or finite numbers
// (least-squares: the targets); the feature columns (default: every column but the label and the
// client column) finite numbers. Other columns are not read. Preprocessing on the pooled table,
// before the split: every feature z-scored (population standard deviation) when `standardise`,
// then a column of ones, named "intercept", appended when `intercept`. Targets are kept as given.
//
// Splits (the rows each client receives, logistic_data.hpp's partitions, seeded by `seed`):
//   iid        shuffled, then N blocks whose sizes differ by at most one (iid_assignment);
//   dirichlet  per class k, proportions p_k ~ Dirichlet(α 1_N) over the clients
//              (dirichlet_class_assignment, Hsu, Qi & Brown 2019); for least-squares the classes
//              are `bins` equal-count quantile bins of the target (diabetes_data.hpp's
//              target_bins);
//   by-column  one client per distinct value of `client_column` (sorted: numerically when every
//              value is a number, else as text); no randomness.
// Same table, options and seed ⇒ the same JSON, bit for bit. The file's "generator" record holds
// the options, the class names, the client values and the standardisation's means and standard
// deviations.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fedverify::theory {

struct CsvProblemOptions {
  std::string kind = "logistic";      // "logistic" | "least-squares"
  std::string label;                  // the label (logistic) or target (least-squares) column
  std::vector<std::string> features;  // the feature columns; empty: every other column
  std::string split = "iid";          // "iid" | "dirichlet" | "by-column"
  int clients = 0;                    // N ≥ 1 (iid, dirichlet); by-column: 0 or the value count
  double alpha = 0.5;                 // Dirichlet concentration > 0 (dirichlet)
  int bins = 5;                       // target quantile bins (least-squares, dirichlet)
  std::string client_column;          // the column whose values are the clients (by-column)
  std::string positive_label;         // logistic: the value mapped to +1 (default: see .cpp)
  bool standardise = true;            // z-score the features on the pooled table
  bool intercept = true;              // append a column of ones after standardising
  double l2 = 0.1;                    // λ ≥ 0 of every client
  int batch_size = 1;                 // B ≥ 1
  std::uint64_t seed = 1;
  char delimiter = ',';
};

// Throws InputError naming the option ("alpha: must be finite and > 0, got 0").
void validate(const CsvProblemOptions& options);

// One client per distinct value of `values`, in sorted order (numerically when every value is a
// number, else as text), each with its rows in increasing order; `client_values` receives the
// values in client order.
std::vector<std::vector<int>> by_value_assignment(const std::vector<std::string>& values,
                                                  std::vector<std::string>* client_values);

// The problem file of the table at `path`, checked by parse_problem (so `predict` and `simulate`
// read it unchanged). InputError names the option ("label: no column named \"y\" (the columns
// are …)"), or the file, line and column of a cell ("t.csv: line 7, column 3 (bmi): \"abc\" is
// not a number"), or the client left without rows.
nlohmann::json csv_problem_json(const std::string& path, const CsvProblemOptions& options);

}  // namespace fedverify::theory
