// QuadraticProblem: f_c(x) = ½ (x − b_c)ᵀ A_c (x − b_c) with additive Gaussian gradient noise
// ε ~ N(0, S_c) (docs/PROBLEM_FORMATS.md). ∇³f_c = 0 and C_c(x) = S_c for all x.
#pragma once

#include <vector>

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

struct QuadraticClient {
  Matrix hessian;    // A_c, symmetric positive definite
  Vector optimum;    // b_c
  Matrix noise_cov;  // S_c, symmetric positive semi-definite
};

class QuadraticProblem final : public Problem {
 public:
  // Validates shapes, symmetry and definiteness; throws InputError naming the field
  // (e.g. "clients[1].hessian: not positive definite (smallest eigenvalue -0.2)").
  explicit QuadraticProblem(std::vector<QuadraticClient> clients);

  ProblemKind kind() const override { return ProblemKind::quadratic; }
  int dim() const override { return dim_; }
  int num_clients() const override { return static_cast<int>(clients_.size()); }

  double value(int client, const Vector& x) const override;
  Vector gradient(int client, const Vector& x) const override;
  Matrix hessian(int client, const Vector& x) const override;
  Vector third_derivative(int client, const Vector& x, const Matrix& m) const override;
  Matrix noise_covariance(int client, const Vector& x) const override;
  double strong_convexity() const override { return mu_; }
  double smoothness() const override { return l_; }

  const QuadraticClient& client(int c) const { return clients_[c]; }
  // R_c with R_c R_cᵀ = S_c (S_c may be singular): R_c = Pᵀ L √D from the pivoted LDLᵀ
  // factorisation P S_c Pᵀ = L D Lᵀ (D clamped at 0), so R_c is lower triangular up to the row
  // permutation Pᵀ: its rows, taken in the order of P, have 1, 2, …, d leading entries and then
  // zeros. Any factor gives R_c z the law N(0, S_c) (THEORY F5); this one lets the sampler form
  // R_c z with d(d+1)/2 multiplications instead of d² (kernels/quadratic.cpp).
  const Matrix& noise_factor(int c) const { return noise_factors_[c]; }

 private:
  std::vector<QuadraticClient> clients_;
  std::vector<Matrix> noise_factors_;
  int dim_ = 0;
  double mu_ = 0.0;
  double l_ = 0.0;
};

}  // namespace fedverify::theory
