// Multinomial (softmax) L2-regularised logistic regression, the convex proxy of the optimiser
// study (issue 14 item 4; THEORY O6). K classes, p features (intercept included by the caller);
// the parameter is the p × K weight matrix W, flattened column by column: x[i + p·k] = W(i, k)
// (column k scores class k). On a data set {(a_j, y_j)}_{j ≤ n}, y_j ∈ {0, …, K − 1}:
//   f(W) = (1/n) Σ_j [log Σ_k exp(a_jᵀW_k) − a_jᵀW_{y_j}] + (λ/2)‖W‖²_F,
//   ∇f   = (1/n) Aᵀ(P − Y) + λW,          P_jk = softmax(a_jᵀW)_k, Y_jk = [y_j = k],
//   ∇²f  = (1/n) Σ_j (diag(p_j) − p_j p_jᵀ) ⊗ a_j a_jᵀ + λI,
//   C(W) = (1/B) Cov_j(∇ℓ_j(W)), ∇ℓ_j = vec(a_j (p_j − e_{y_j})ᵀ): the covariance of a minibatch
//          gradient of B samples drawn uniformly with replacement (population covariance).
// The model is over-parameterised by one class (adding a vector to every column leaves the
// loss unchanged); λ > 0 makes f strictly convex. K = 2 is binary logistic regression in the
// same form (the study's breast-cancer table).
#pragma once

#include <span>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// A labelled table: one sample a_jᵀ per row of `features`, its class in labels[j] ∈ [0, classes).
struct ClassificationData {
  Matrix features;
  std::vector<int> labels;
  int classes = 0;
  int samples() const { return static_cast<int>(labels.size()); }
  int dim() const { return static_cast<int>(features.cols()); }
  // The rows `rows` (in that order, repeats allowed) as a table of their own.
  ClassificationData subset(std::span<const int> rows) const;
};

// Throws InputError naming `what` when the shapes disagree, a label is outside [0, classes),
// a feature is not finite, or classes < 2.
void validate(const ClassificationData& data, const char* what);

// The objective and its derivatives on the rows `rows` of `data` (all rows when empty), with
// repeats counted: a minibatch drawn with replacement is a list of rows. x has p·K entries.
double softmax_loss(const ClassificationData& data, const Vector& x, double l2,
                    std::span<const int> rows = {});
Vector softmax_gradient(const ClassificationData& data, const Vector& x, double l2,
                        std::span<const int> rows = {});
Matrix softmax_hessian(const ClassificationData& data, const Vector& x, double l2,
                       std::span<const int> rows = {});
// Per-sample gradients of the unregularised loss, one column per row (pK × n).
Matrix softmax_sample_gradients(const ClassificationData& data, const Vector& x);
// The minibatch-gradient noise covariance (1/B) Cov_j(∇ℓ_j) over all rows of `data`.
Matrix softmax_noise_covariance(const ClassificationData& data, const Vector& x, int batch_size);
// The fraction of rows whose highest score is their label (ties: the lowest class index).
double softmax_accuracy(const ClassificationData& data, const Vector& x);

// The federated problem: one table per client, a common λ and minibatch size B.
class MultinomialProblem {
 public:
  // Validates every client (InputError naming "clients[c]") and λ ≥ 0, B ≥ 1.
  MultinomialProblem(std::vector<ClassificationData> clients, double l2, int batch_size);

  int num_clients() const { return static_cast<int>(clients_.size()); }
  int features() const { return features_; }
  int classes() const { return classes_; }
  int dim() const { return features_ * classes_; }  // p·K
  double l2() const { return l2_; }
  int batch_size() const { return batch_size_; }
  const ClassificationData& client(int c) const { return clients_[c]; }

  double value(int client, const Vector& x) const;
  Vector gradient(int client, const Vector& x) const;
  Matrix hessian(int client, const Vector& x) const;
  Matrix noise_covariance(int client, const Vector& x) const;
  // ∇F_c(x; rows): the gradient on the client's rows `rows` (a minibatch).
  Vector minibatch_gradient(int client, const Vector& x, std::span<const int> rows) const;

 private:
  std::vector<ClassificationData> clients_;
  double l2_;
  int batch_size_;
  int features_ = 0;
  int classes_ = 0;
};

}  // namespace fedverify::theory
