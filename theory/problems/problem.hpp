// Problem: a federated objective f(x) = (1/N) Σ_c f_c(x) with a stochastic-gradient oracle.
//
// Everything the closed forms of docs/THEORY.md need of a problem is here: per-client value,
// gradient, Hessian, third-derivative contraction ∇³f_c(x)[M] (THEORY N2) and the covariance
// C_c(x) of the stochastic-gradient noise. Samplers (estimators/chains) draw the stochastic
// gradients themselves, from the concrete problem type.
#pragma once

#include <memory>
#include <string>

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
};

// Averages over clients: f = (1/N) Σ_c f_c and its derivatives.
double average_value(const Problem& p, const Vector& x);
Vector average_gradient(const Problem& p, const Vector& x);
Matrix average_hessian(const Problem& p, const Vector& x);
Vector average_third_derivative(const Problem& p, const Vector& x, const Matrix& m);
Matrix average_noise_covariance(const Problem& p, const Vector& x);  // C̄ at x

std::string to_string(ProblemKind kind);

// The kinds served by LinearSaProblem (THEORY (L0)).
inline bool is_linear_sa(ProblemKind kind) {
  return kind == ProblemKind::linear_sa || kind == ProblemKind::least_squares;
}

}  // namespace fedverify::theory
