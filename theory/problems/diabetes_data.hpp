// Federated least squares on scikit-learn's diabetes table (Efron, Hastie, Johnstone & Tibshirani
// 2004, "Least angle regression": 442 patients × 10 baseline variables, target a measure of
// disease progression one year later), as shipped by Debian's python3-sklearn in
// sklearn/datasets/data/diabetes_data_raw.csv.gz (blank-separated, the raw, unscaled values) and
// diabetes_target.csv.gz, emitted as a `least-squares` problem file
// (docs/problem-formats-linear-sa.md; THEORY (L0) with A = aaᵀ + λI, b = y·a;
// docs/generators-linear-sa.md).
//
// Preprocessing, on the pooled table: every feature z-scored (population standard deviation),
// then an intercept column of ones appended (d = 11); the target z-scored too unless
// standardise_target is false. Client splits (rows of the pooled table):
//   iid              shuffled, N blocks whose sizes differ by at most one (iid_assignment);
//   dirichlet        label-skew analogue: the target cut into `bins` equal-count quantile bins
//                    (rank by target, ties by row index), then Dirichlet(α) proportions of each
//                    bin over the clients (dirichlet_class_assignment, Hsu, Qi & Brown 2019);
//   covariate-shift  rows sorted by one raw feature (`shift_feature`, ties by row index), client
//                    c owning the contiguous block [⌊c n/N⌋, ⌊(c + 1) n/N⌋) of its quantiles;
//                    no randomness.
// Randomness: logistic_data's partition streams (seeded by `seed`): same seed ⇒ same JSON bytes.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// sklearn's feature names of the ten columns, in file order.
inline constexpr std::array<const char*, 10> kDiabetesFeatures = {"age", "sex", "bmi", "bp", "s1",
                                                                  "s2",  "s3",  "s4",  "s5", "s6"};

enum class DiabetesSplit { iid, dirichlet, covariate_shift };

struct DiabetesOptions {
  int clients = 10;  // N, 1 ≤ N ≤ 442
  DiabetesSplit split = DiabetesSplit::dirichlet;
  double alpha = 0.5;  // Dirichlet concentration > 0 (split = dirichlet)
  int bins = 5;        // target quantile bins, 1 ≤ bins ≤ 442 (split = dirichlet)
  std::string shift_feature = "bmi";  // one of kDiabetesFeatures (split = covariate-shift)
  double l2 = 0.1;                    // λ ≥ 0 of every client
  int batch_size = 1;                 // B ≥ 1
  bool standardise_target = true;
  std::uint64_t seed = 1;
  // Where the two tables are read (not part of the generator record: the data are the same
  // wherever they are read from).
  std::string data_dir = "/usr/lib/python3/dist-packages/sklearn/datasets/data";
};

// Throws InputError naming the field ("generator.alpha: …").
void validate(const DiabetesOptions& options);

struct RegressionTable {
  Matrix features;  // n × d
  Vector targets;   // n
};

// The raw 442 × 10 table and its target; InputError "PATH: …" when a file is missing or
// malformed, or when the shapes are not 442 × 10 and 442.
RegressionTable read_diabetes(const std::string& data_dir);

// z-scored features (population std) with the intercept column appended; the target z-scored
// when standardise_target. InputError for a constant column.
RegressionTable standardised(const RegressionTable& raw, bool standardise_target);

// Quantile bin of every target: rank r (by value, ties by row index) ↦ ⌊r · bins / n⌋.
std::vector<int> target_bins(const Vector& targets, int bins);

// Client c owns the rows ranked [⌊c n/N⌋, ⌊(c + 1) n/N⌋) by `values` (ties by row index),
// returned in increasing row order.
std::vector<std::vector<int>> quantile_blocks(const Vector& values, int clients);

// The rows of the pooled table each client receives under options.split.
std::vector<std::vector<int>> diabetes_assignment(const RegressionTable& raw,
                                                  const DiabetesOptions& options);

// The problem file: {"kind": "least-squares", "l2": λ, "batch_size": B, "generator": {...},
// "clients": [{"features": [[...],...], "targets": [...]}, ...]}; the generator record holds
// "name": "diabetes", clients, split ("iid" | "dirichlet" | "covariate-shift"), alpha, bins,
// shift_feature, l2, batch_size, standardise_target and seed.
nlohmann::json diabetes_least_squares_json(const DiabetesOptions& options);

// The default catalogue's least-squares problem (issue 26 item 4): N = 10 Dirichlet(0.5)
// clients over 5 target bins, λ = 0.1, B = 1, seed 20261127.
DiabetesOptions diabetes_preset_options();
nlohmann::json diabetes_preset();

std::string to_string(DiabetesSplit split);
DiabetesSplit parse_diabetes_split(const std::string& name);  // InputError naming the field

}  // namespace fedverify::theory
