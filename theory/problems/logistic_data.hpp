// Data for logistic-regression problems (THEORY §6): seeded synthetic generators with explicit
// heterogeneity knobs, a Dirichlet(α) label partition of a pooled data set, and a CSV loader.
//
// Every random draw comes from estimators::Stream(seed, Purpose::problem_generator, role,
// client, …), so a problem is a pure function of its options: same seed ⇒ bit-identical
// problem, and the data of client c do not depend on how many other clients there are.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "theory/base/rng.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::theory {

// --- Synthetic generator -----------------------------------------------------------------------
//
// Model (class-conditional Gaussians, whose Bayes posterior is exactly logistic):
//   true direction  u ~ uniform on the unit sphere of R^d (shared by all clients);
//   client shift    m_c ~ N(0, feature_shift² I_d);
//   labels          client c holds n⁺_c = ⌊n π_c + ½⌋ samples with y = +1 and the rest y = −1,
//                   π_c = ½ + ½ · label_skew · s_c, s_c = +1 for even c and −1 for odd c
//                   (so the pooled data stay balanced when N is even);
//   features        a_j = m_c + y_j (separation / 2) u + ξ_j,   ξ_j ~ N(0, I_d).
// For feature_shift = 0 and balanced labels, P(y = 1 | a) = σ(separation · uᵀa): `separation`
// is the norm of the true logistic parameter θ_true = separation · u (0 = pure noise labels).
struct LogisticGeneratorOptions {
  int dim = 5;                  // d ≥ 1
  int clients = 10;             // N ≥ 1
  int samples_per_client = 50;  // n_c ≥ 1, the same on every client
  double l2 = 0.1;              // λ ≥ 0 (λ = 0 may leave separable data without a minimiser)
  int batch_size = 1;           // B ≥ 1, minibatch size of the stochastic gradient
  double feature_shift = 0.0;   // ≥ 0: std of the per-client feature mean shift; 0 = iid features
  double label_skew = 0.0;  // in [0, 1]: 0 = balanced labels on every client (|n⁺ − n⁻| ≤ 1),
                            // 1 = every client holds a single class
  double separation = 1.0;  // ≥ 0: ‖θ_true‖, the signal strength of the labels
  std::uint64_t seed = 1;
};

// Throws InputError naming the field (e.g. "label_skew: must lie in [0, 1], got 1.5").
void validate(const LogisticGeneratorOptions& options);

LogisticProblem generate_logistic(const LogisticGeneratorOptions& options);

// θ_true = separation · u, the parameter of the Bayes posterior P(y = 1 | a) = σ(θ_trueᵀa) of
// the model above when feature_shift = 0 and label_skew = 0 (the same u generate_logistic uses).
Vector true_parameter(const LogisticGeneratorOptions& options);

// --- Partitions of a pooled data set ----------------------------------------------------------
//
// Both return, for each client, the (increasing) row indices of the samples it receives; every
// row is used exactly once and every client receives at least one row (needs rows ≥ clients).

// Shuffle, then cut into N blocks whose sizes differ by at most one.
std::vector<std::vector<int>> iid_assignment(int samples, int clients, std::uint64_t seed);

// Dirichlet label partition (Hsu, Qi & Brown 2019): for each class k ∈ {−1, +1} draw
// p_k ~ Dirichlet(α, …, α) over the N clients and give client c the share p_kc of the
// (shuffled) class-k rows, rounding the cumulative shares ⌊n_k Σ_{c'≤c} p_kc' + ½⌋.
// α → ∞ approaches an iid split (every client sees the pooled class ratio); α → 0 approaches
// one class per client. Gamma(α) variates: Marsaglia–Tsang, in log space so that α ≪ 1 does
// not underflow. Non-emptiness: a client left empty by the draw receives one row from the
// client currently holding the most rows (deterministic, consumes no randomness; changes at
// most N − 1 rows). Throws InputError if α ≤ 0 or not finite, or if rows < clients.
std::vector<std::vector<int>> dirichlet_assignment(const Vector& labels, int clients, double alpha,
                                                   std::uint64_t seed);

// The same for K classes (labels[j] ∈ [0, K)): one Dirichlet(α 1_N) draw per class k, from the
// stream (problem_generator, role Dirichlet, client slot k), and the class-k rows shuffled by one
// stream shared by the classes in class order. dirichlet_assignment is this with class 0 = −1 and
// class 1 = +1 (bit-identical). Throws InputError for a label outside [0, K) (naming it), α ≤ 0
// or not finite, or rows < clients.
std::vector<std::vector<int>> dirichlet_class_assignment(const std::vector<int>& classes,
                                                         int num_classes, int clients, double alpha,
                                                         std::uint64_t seed);

// Fisher–Yates shuffle of v in place with the stream's unbiased integers (Stream::below).
void shuffle(std::vector<int>& v, estimators::Stream& stream);

// The LogisticProblem whose client c holds the rows assignment[c] of (features, labels).
LogisticProblem split_by_assignment(const Matrix& features, const Vector& labels,
                                    const std::vector<std::vector<int>>& assignment, double l2,
                                    int batch_size);

LogisticProblem partition_iid(const Matrix& features, const Vector& labels, int clients,
                              std::uint64_t seed, double l2, int batch_size);
LogisticProblem partition_dirichlet(const Matrix& features, const Vector& labels, int clients,
                                    double alpha, std::uint64_t seed, double l2, int batch_size);

// log G for one G ~ Gamma(shape, 1), drawn from `stream` by Marsaglia & Tsang (2000): for
// shape ≥ 1 by squeeze-rejection on (1 + c·Z)³; for shape < 1 through G = G' · U^{1/shape},
// G' ~ Gamma(shape + 1), kept as a logarithm because U^{1/shape} underflows for shape ≪ 1.
// Requires shape > 0 and finite.
double log_gamma_variate(double shape, estimators::Stream& stream);

// --- CSV tables --------------------------------------------------------------------------------

enum class CsvHeader {
  none,   // every line is a data row; features are named "x0", "x1", …
  names,  // the first line holds column names
  // scikit-learn's bundled format (e.g. sklearn/datasets/data/breast_cancer.csv): the first line
  // is "n_samples,n_features,class_name_0,class_name_1,…", the label is the LAST column and holds
  // the class index 0/1 (0 ↦ −1, 1 ↦ +1). The counts are checked against the data.
  sklearn_counts,
};

struct CsvOptions {
  CsvHeader header = CsvHeader::names;
  char delimiter = ',';
  // The label column, by name (needs CsvHeader::names) or by 0-based index; −1 = last column.
  // The name wins when both are given.
  std::string label_name{};
  int label_index = -1;
  // The label value mapped to +1; the column must hold exactly two distinct values. When empty:
  // {0, 1} ↦ {−1, +1}, {−1, 1} ↦ itself, any other two values ↦ (−1, +1) in sorted order
  // (numerically if both are numbers, else lexicographically).
  std::string positive_label{};
  bool standardize = false;  // z-score every feature column (population std; constant ⇒ error)
  bool intercept = false;    // append a column of ones, named "intercept", after standardising
};

struct LabelledTable {
  Matrix features;  // n × d
  Vector labels;    // n entries in {−1, +1}
  std::vector<std::string> feature_names;
  std::array<std::string, 2> class_names;  // the values mapped to −1 and to +1
};

// Throws InputError "PATH: line L, column C (NAME): …" for malformed rows, non-numeric
// features, a wrong number of fields, a label column with other than two classes, etc.
LabelledTable load_csv_table(const std::string& path, const CsvOptions& options = {});

}  // namespace fedverify::theory
