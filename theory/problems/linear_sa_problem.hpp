// LinearSaProblem: linear stochastic approximation with multiplicative noise (THEORY (L0)), the
// problem kinds "linear-sa" and "least-squares" of docs/problem-formats-linear-sa.md.
//
// Client c has a finite-support law of pairs (A, b) (sample k with probability π_k ∝ its weight)
// and a stochastic step from x draws B pairs with replacement and uses the field
//     g_c(x) = Ā_B x − b̄_B     (averages of the B drawn A and b).
// Least squares is the special case A_j = a_j a_jᵀ + λI, b_j = y_j a_j with equal sample
// weights, stored compactly (features, targets, l2): nothing of size d² per sample is formed.
//
// As a Problem: gradient(c, x) is the mean field Ā_c x − b̄_c, hessian(c, x) its Jacobian Ā_c
// (not symmetric in general: TD(0)), third_derivative 0, and noise_covariance(c, x) the
// state-dependent C_c(x) = Cov(A(Z)x − b(Z))/B. value(c, x) is ½xᵀĀ_c x − b̄_cᵀx, the potential
// of the field when Ā_c is symmetric (the least-squares objective up to a constant); for a
// non-symmetric Ā_c the field has no potential and value() is only that quadratic form.
//
// Client weights p_c (Problem::set_client_weights, THEORY (A1)): x* solves Σ_c p_c (Ā_c x − b̄_c) =
// 0.
#pragma once

#include <optional>
#include <vector>

#include "theory/problems/linear_sa_factors.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// How a client's stochastic step picks its B samples (docs/problem-formats-linear-sa.md, field
// "sampling"; THEORY (A4)): independently with replacement (the default), or by random
// reshuffling: each pass visits the client's n_c samples in a fresh uniformly random order, B at a
// time (n_c/B steps a pass, B dividing n_c); a round's H steps run pass after pass and the next
// round starts a fresh pass.
enum class SampleOrder { with_replacement, reshuffled };

struct LinearSaSample {
  double weight = 1;  // > 0, relative probability of the sample within its client
  Matrix a;           // A, d × d
  Vector b;           // b, d
};

struct LinearSaClient {
  std::vector<LinearSaSample> samples;
};

struct LeastSquaresClient {
  Matrix features;  // n_c × d, one a_jᵀ per row
  Vector targets;   // n_c
};

class LinearSaProblem final : public Problem {
 public:
  // Validate shapes, finiteness, weights > 0, B ≥ 1, every Ā_c stable (Re eig > 0) and Σ_c Ā_c
  // non-singular; throw InputError naming the field ("clients[1].samples[0].A: …").
  LinearSaProblem(std::vector<LinearSaClient> clients, int batch_size);
  LinearSaProblem(std::vector<LeastSquaresClient> clients, double l2, int batch_size);

  ProblemKind kind() const override {
    return least_squares_ ? ProblemKind::least_squares : ProblemKind::linear_sa;
  }
  int dim() const override { return dim_; }
  int num_clients() const override { return static_cast<int>(mean_a_.size()); }

  double value(int client, const Vector& x) const override;
  Vector gradient(int client, const Vector& x) const override;  // Ā_c x − b̄_c
  Matrix hessian(int client, const Vector& x) const override;   // Ā_c
  Vector third_derivative(int client, const Vector& x, const Matrix& m) const override;  // 0
  // C_c(x) = Cov_Z(A(Z)x − b(Z)) / B.                                         THEORY (L1)
  Matrix noise_covariance(int client, const Vector& x) const override;
  // min_c λ_min of the symmetric part of Ā_c (may be ≤ 0 for a non-symmetric Ā_c: it is the
  // monotonicity constant of the mean field, not a curvature).
  double strong_convexity() const override { return mu_; }
  // max over samples of ‖A_k‖₂ (least squares: max_j ‖a_j‖² + λ), the per-sample constant of
  // THEORY (F1)'s correction.
  double smoothness() const override { return l_; }

  // E_x[C_c(x)] for a random x with mean m and covariance s (C_c is quadratic in x, so this is
  // exact for any law):  (1/B) E_Z[(ΔA m − Δb)(ΔA m − Δb)ᵀ + ΔA s ΔAᵀ],  ΔA = A(Z) − Ā_c,
  // Δb = b(Z) − b̄_c. It is the one place where the minibatch enters the moments of THEORY (L1):
  // for a step u' = Ḡu, Ḡ the mean of B iid G = [[I − γA, γb], [0, 1]],
  //     E[Ḡ ⊗ Ḡ] = (1/B) E[G ⊗ G] + (1 − 1/B) E[G] ⊗ E[G],
  // so E[Ḡ U Ḡᵀ] = E[G] U E[G]ᵀ + (γ²/B) E[Δ U Δᵀ] with Δ = G − E[G]; the second term is
  // γ² · expected_noise_covariance in the x block.                            THEORY (L1)
  Matrix expected_noise_covariance(int client, const Vector& m, const Matrix& s) const;
  // Its part linear in s, (1/B) E_Z[ΔA s ΔAᵀ] (= expected_noise_covariance(c, m, s) minus
  // expected_noise_covariance(c, m, 0), without that cancellation): the map 𝒩 of THEORY (L1).
  // On a client with low-rank samples (factored(c)) it is computed from the factors,
  // (1/B)[Σ_k π_k U_k (V_kᵀ s V_k) U_kᵀ − Ā s Āᵀ] (linear_sa_factors.hpp), O(d² Σ_k r_k) instead of
  // O(K d³); expected_noise_covariance keeps the per-sample form (the dense solves' bits).
  Matrix expected_noise_covariance_linear(int client, const Matrix& s) const;
  // Whether client c's samples are stored factored (linear_sa_factors.hpp: every sample of
  // numerical rank ≤ d/4 and a mild cancellation); least squares has its own rank-one form.
  bool factored(int c) const { return !factors_.empty() && factors_[c].has_value(); }
  // Client c's factors when factored(c) (else nullptr): A_k = U_k V_kᵀ up to the rank tolerance.
  const LowRankSamples* factors(int c) const { return factored(c) ? &*factors_[c] : nullptr; }

  const Matrix& mean_a(int client) const { return mean_a_[client]; }  // Ā_c
  const Vector& mean_b(int client) const { return mean_b_[client]; }  // b̄_c
  // x*: (Σ_c Ā_c) x* = Σ_c b̄_c.                                               THEORY (L0)
  const Vector& solution() const { return x_star_; }
  int batch_size() const { return batch_size_; }
  SampleOrder sample_order() const { return sample_order_; }
  bool reshuffled() const { return sample_order_ == SampleOrder::reshuffled; }
  // Reshuffling needs equally likely samples and B dividing every n_c: throws InputError naming
  // "sampling" otherwise.
  void set_sample_order(SampleOrder order);
  bool least_squares() const { return least_squares_; }
  double l2() const { return l2_; }  // least squares only (0 otherwise)

  // The stored samples: linear-sa clients (empty for least squares) and least-squares clients
  // (empty for linear-sa).
  const LinearSaClient& client(int c) const { return clients_[c]; }
  const LeastSquaresClient& ls_client(int c) const { return ls_clients_[c]; }
  // Normalised sample probabilities π_k of a linear-sa client (Σ_k π_k = 1).
  const Vector& probabilities(int c) const { return probabilities_[c]; }
  int num_samples(int c) const;

 private:
  void weights_changed() override { solve_optimum(); }
  void finish();         // means, x*, constants and the stability checks
  void solve_optimum();  // x*, THEORY (L0) with the client weights

  std::vector<LinearSaClient> clients_;
  std::vector<LeastSquaresClient> ls_clients_;
  std::vector<Vector> probabilities_;
  std::vector<std::optional<LowRankSamples>> factors_;  // linear-sa only, per client
  std::vector<Matrix> mean_a_;
  std::vector<Vector> mean_b_;
  Vector x_star_;
  int batch_size_ = 1;
  SampleOrder sample_order_ = SampleOrder::with_replacement;
  bool least_squares_ = false;
  double l2_ = 0;
  int dim_ = 0;
  double mu_ = 0;
  double l_ = 0;
};

}  // namespace fedverify::theory
