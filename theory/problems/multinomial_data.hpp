// Data of the optimiser study (issue 14 item 4; THEORY O6): the public tables that Debian's
// python3-sklearn ships, a seeded train/validation/test split with standardisation from the
// training split, and FedProx's synthetic(α, β) generator.
//
// Randomness: every draw comes from estimators::Stream(seed, Purpose::problem_generator, role,
// client), the roles below numbered apart from logistic_data's, so a data set is a pure function
// of its options: same seed ⇒ bit-identical data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/multinomial_problem.hpp"

namespace fedverify::theory {

// --- Tables ------------------------------------------------------------------------------------

enum class TableHeader {
  none,            // every line is a data row (sklearn's digits.csv.gz)
  sklearn_counts,  // first line "n_samples,n_features,class_0,class_1,…" (breast_cancer.csv)
};

// Reads a comma-separated table, gzip-compressed or plain (zlib reads both), one sample per line:
// its features, then its class, a non-negative integer, in the last field. With sklearn_counts
// the counts and the number of class names are checked against the data; with none the classes
// are 0, …, (largest label). Throws InputError "PATH: …" (with the line) when the file cannot be
// opened, a line has another number of fields than the first, a field is not a finite number,
// a label is not an integer in range, or the table is empty.
ClassificationData read_class_table(const std::string& path, TableHeader header);

// Reads a table of numbers only (no header, no label), gzip-compressed or plain: fields separated
// by blanks (spaces or tabs, sklearn's diabetes_data_raw.csv.gz) or by commas, every line with the
// same number of fields. Throws InputError "PATH: line L, …" as read_class_table does.
Matrix read_number_table(const std::string& path);

// Where python3-sklearn puts its bundled tables, and the two the study reads.
inline constexpr const char* kSklearnDataDir =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data";
std::string sklearn_table_path(const std::string& file);         // kSklearnDataDir + "/" + file
ClassificationData read_digits(const std::string& path);         // 1797 × 64, 10 classes
ClassificationData read_breast_cancer(const std::string& path);  // 569 × 30, 2 classes

// --- Splits ------------------------------------------------------------------------------------

struct DataSplit {
  ClassificationData train, validation, test;
};

// Shuffles the rows (seeded) and cuts them into ⌊n·train⌋ training rows, ⌊n·validation⌋
// validation rows and the rest for test. Throws InputError unless the fractions are in (0, 1)
// with train + validation < 1 and every part gets at least one row.
DataSplit split_rows(const ClassificationData& data, double train, double validation,
                     std::uint64_t seed);

// z-scores every feature of the three parts with the TRAINING part's mean and (population)
// standard deviation; a feature constant on the training part is only centred. Then appends
// the intercept column of ones to each part.
void standardise(DataSplit& split);
// Appends a column of ones (the intercept) to the table.
void add_intercept(ClassificationData& data);

// The rows of `data` assigned to each client (dirichlet_class_assignment's lists) as tables.
std::vector<ClassificationData> client_tables(const ClassificationData& data,
                                              const std::vector<std::vector<int>>& assignment);

// --- FedProx's synthetic(α, β) (Li et al., MLSys 2020, §5.1 and their generator) ---------------
//
// Client k: u_k ~ N(0, α²), B_k ~ N(0, β²) (numpy's normal(0, α), the authors' code: α and β are
// standard deviations); W_k (60 × 10) and b_k (10) with entries ~ N(u_k, 1); v_k with entries
// ~ N(B_k, 1); features a ~ N(v_k, Σ), Σ = diag(j^{−1.2}), j = 1, …, 60; label
// y = argmax(W_kᵀa + b_k). Samples per client n_k = 50 + ⌊LogNormal(4, 2)⌋ as in the authors'
// code (their "power law"), capped at max_samples (the lognormal tail reaches 10⁴).
struct SyntheticOptions {
  double alpha = 1.0;
  double beta = 1.0;
  int clients = 100;
  int max_samples = 1000;
  std::uint64_t seed = 1;
};
inline constexpr int kSyntheticFeatures = 60;
inline constexpr int kSyntheticClasses = 10;

// One table per client (no intercept, not standardised). Throws InputError naming the field
// for α or β negative or not finite, clients < 1 or max_samples < 50.
std::vector<ClassificationData> synthetic_fedprox(const SyntheticOptions& options);

}  // namespace fedverify::theory
