// LogisticProblem: f_c(x) = (1/n_c) Σ_j φ(y_j a_jᵀ x) + (λ/2)‖x‖², φ(s) = log(1 + e^{−s}),
// with minibatch stochastic gradients (B samples uniformly with replacement).   THEORY (§6)
#pragma once

#include <vector>

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

struct LogisticClient {
  Matrix features;  // n_c × d, one sample a_jᵀ per row
  Vector labels;    // n_c entries in {−1, +1}
};

class LogisticProblem final : public Problem {
 public:
  // Validates shapes and labels; throws InputError naming the field.
  LogisticProblem(std::vector<LogisticClient> clients, double l2, int batch_size);

  ProblemKind kind() const override { return ProblemKind::logistic; }
  int dim() const override { return dim_; }
  int num_clients() const override { return static_cast<int>(clients_.size()); }

  double value(int client, const Vector& x) const override;
  Vector gradient(int client, const Vector& x) const override;
  Matrix hessian(int client, const Vector& x) const override;
  Vector third_derivative(int client, const Vector& x, const Matrix& m) const override;
  // C_c(x) = (1/B) Cov_j(∇ℓ_j(x)), population covariance over the client's samples.  THEORY (§6)
  Matrix noise_covariance(int client, const Vector& x) const override;
  double strong_convexity() const override { return l2_; }
  double smoothness() const override { return smoothness_; }

  const LogisticClient& client(int c) const { return clients_[c]; }
  double l2() const { return l2_; }
  int batch_size() const { return batch_size_; }

  // Per-sample gradients of client c at x, one per column (d × n_c): ∇ℓ_j(x).
  Matrix sample_gradients(int client, const Vector& x) const;

 private:
  std::vector<LogisticClient> clients_;
  double l2_;
  int batch_size_;
  int dim_ = 0;
  double smoothness_ = 0.0;
};

// The scalar loss φ(s) = log(1 + e^{−s}) and its derivatives.                THEORY (§6)
double logistic_loss(double s);
double logistic_d1(double s);  // −(1 − p)
double logistic_d2(double s);  // p(1 − p)
double logistic_d3(double s);  // p(1 − p)(1 − 2p)

}  // namespace fedverify::theory
