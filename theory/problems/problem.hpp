// Problem: a federated objective f(x) = Σ_c p_c f_c(x) with a stochastic-gradient oracle; the
// client weights p_c (Σ_c p_c = 1) are equal, p_c = 1/N, unless the problem file gives them
// (docs/PROBLEM_FORMATS.md, client weights; THEORY (A1)).
//
// Everything the closed forms of docs/THEORY.md need of a problem is here: per-client value,
// gradient, Hessian, third-derivative contraction ∇³f_c(x)[M] (THEORY N2) and the covariance
// C_c(x) of the stochastic-gradient noise. Samplers (estimators/chains) draw the stochastic
// gradients themselves, from the concrete problem type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// linear_sa, least_squares: LinearSaProblem (THEORY (L0)), whose Hessian Ā_c need not be symmetric.
enum class ProblemKind { quadratic, logistic, linear_sa, least_squares };

class Problem {
 public:
  virtual ~Problem() = default;

  virtual ProblemKind kind() const = 0;
  virtual int dim() const = 0;
  virtual int num_clients() const = 0;

  virtual double value(int client, const Vector& x) const = 0;
  virtual Vector gradient(int client, const Vector& x) const = 0;
  virtual Matrix hessian(int client, const Vector& x) const = 0;
  // (∇³f_c(x)[M])_i = Σ_jk ∂³f_c/∂x_i∂x_j∂x_k (x) M_jk.                       THEORY (N2)
  virtual Vector third_derivative(int client, const Vector& x, const Matrix& m) const = 0;
  // C_c(x) = Cov(∇F_c(x; Z)) of one stochastic gradient.                     THEORY (0)
  virtual Matrix noise_covariance(int client, const Vector& x) const = 0;

  // Global bounds on the client Hessians over the whole space, when known in closed form:
  // μ ≤ λ_min(∇²f_c(x)) and λ_max(∇²f_c(x)) ≤ L for every c and x.
  virtual double strong_convexity() const = 0;
  virtual double smoothness() const = 0;

  // Client weights, THEORY (A1). p_c = raw_c / Σ raw (1/N when none were set).
  double weight(int client) const;
  bool equal_weights() const { return raw_weights_.empty(); }
  // The weights as given (for the problem file: data sizes stay data sizes); empty when equal.
  const std::vector<double>& raw_weights() const { return raw_weights_; }
  // Sets p_c ∝ raw[c]. Throws InputError naming "clients[c].weight" unless there is one finite
  // weight > 0 per client. Weights that are all equal leave the problem equally weighted (the
  // same arithmetic as without weights).
  void set_client_weights(const std::vector<double>& raw);

 protected:
  // Called after the weights change: a problem that caches a weighted quantity (LinearSaProblem's
  // x*) recomputes it.
  virtual void weights_changed() {}

 private:
  std::vector<double> raw_weights_;  // empty: equal weights
  std::vector<double> weights_;      // p_c, normalised
};

// Weighted averages over clients: f = Σ_c p_c f_c and its derivatives ((1/N) Σ_c for equal
// weights, computed as the sum divided by N).
double average_value(const Problem& p, const Vector& x);
Vector average_gradient(const Problem& p, const Vector& x);
Matrix average_hessian(const Problem& p, const Vector& x);
Vector average_third_derivative(const Problem& p, const Vector& x, const Matrix& m);
Matrix average_noise_covariance(const Problem& p, const Vector& x);  // Σ_c p_c C_c(x)
// Client c's term of a weighted average, p_c·v (v/N for equal weights: the arithmetic of the
// unweighted formulas).                                                        THEORY (A1)
template <typename T>
T weighted_term(const Problem& p, int c, const T& v) {
  if (p.equal_weights()) return T(v / static_cast<double>(p.num_clients()));
  return T(p.weight(c) * v);
}
// A noise sum Σ_c p_c² v_c as (Σ_c noise_factor(c)·v_c)/noise_divisor: factors p_c² and divisor 1
// with weights, factors 1 and divisor N² without (the unweighted formulas' arithmetic, sum first).
inline double noise_factor(const Problem& p, int c) {
  return p.equal_weights() ? 1.0 : p.weight(c) * p.weight(c);
}
inline double noise_divisor(const Problem& p) {
  const double n = p.num_clients();
  return p.equal_weights() ? n * n : 1.0;
}

// C̄_p = N Σ_c p_c² C_c(x), the noise the server's average carries, scaled so that it is C̄ for
// equal weights: the aggregate of one stochastic gradient per client has covariance C̄_p/N, and
// every first-order noise term of FedAvg holds with C̄_p in place of C̄.          THEORY (A1)
Matrix aggregated_noise_covariance(const Problem& p, const Vector& x);

std::string to_string(ProblemKind kind);

// The kinds served by LinearSaProblem (THEORY (L0)).
inline bool is_linear_sa(ProblemKind kind) {
  return kind == ProblemKind::linear_sa || kind == ProblemKind::least_squares;
}

}  // namespace fedverify::theory
