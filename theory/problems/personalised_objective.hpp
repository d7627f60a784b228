// Personalised federated learning, the problem side: the mixture objective (P1) of [L2GD] and
// its optimum x(λ), and the settings an L2GD run is made in (λ, p, α, the compressors of (P5)).
// Closed forms of the L2GD dynamics are in theory/algorithms/l2gd.hpp.
//
// A personalised model x = (x_1, …, x_n) is stored as a d×n matrix, column i = x_i (n = the
// number of clients N). Flattened column-major it is the stacked nd-vector, client blocks
// contiguous; the nd×nd matrices below act on that vector.
#pragma once

#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// ---------------------------------------------------------------------------------------------
// The objective (P1) and its optimum.

// The d×n model ↔ the stacked nd-vector (column-major: client blocks contiguous).
Vector flatten(const Matrix& x);
Matrix unflatten(const Vector& v, int d, int n);

// x̄ = (1/n) Σ_i x_i.
Vector client_average(const Matrix& x);

// n·F(x) = Σ_i f_i(x_i) + (λ/2) Σ_i ‖x_i − x̄‖²   (n times F of THEORY (P1)).
double personalised_objective(const Problem& problem, double lambda, const Matrix& x);

// n·∇F(x): column i = ∇f_i(x_i) + λ (x_i − x̄). It vanishes exactly at x(λ): this is the
// optimality condition x_i = x̄ − (1/λ) ∇f_i(x_i), Σ_i ∇f_i(x_i) = 0.        THEORY (P1)
Matrix personalised_gradient(const Problem& problem, double lambda, const Matrix& x);

// x(λ) = argmin F, λ ≥ 0 (λ = 0: the local optima). Quadratics: one linear solve of
// (blockdiag A_i + λ (I − 𝟙𝟙ᵀ/n) ⊗ I_d) x = (A_i b_i)_i. Other problems: damped Newton on the
// stacked nd-vector from x = 0, to ‖n∇F‖ ≤ 1e-13·max(‖n∇F(0)‖, (L + λ) max(1, ‖x‖)). Throws
// InputError for λ < 0
// or when Newton fails.                                                         THEORY (P1)
Matrix personalised_optimum(const Problem& problem, double lambda);

// The two limits of x(λ): λ → 0, column i = argmin f_i; λ → ∞, every column = x*.
Matrix local_optima(const Problem& problem);
Matrix global_optimum_replicated(const Problem& problem);

// ---------------------------------------------------------------------------------------------
// Settings of an L2GD run.

struct L2gdSetting {
  double lambda = 0;  // λ > 0
  double p = 0;       // probability of an averaging step, 0 < p < 1
  double alpha = 0;   // step size α > 0
};

// Throws InputError naming "--lambda", "--p" or "--gamma" for values out of range.
void validate(const L2gdSetting& setting);

// ---------------------------------------------------------------------------------------------
// Unbiased compressors (P5): E𝒬(x) = x and E‖𝒬(x) − x‖² ≤ ω‖x‖².

enum class CompressorKind { identity, random_k, dithering, natural };

struct CompressorSpec {
  CompressorKind kind = CompressorKind::identity;
  int parameter = 0;  // k for random_k (1 ≤ k ≤ d), the number of levels s for dithering (≥ 1)
};

// Throws InputError naming `field` for an invalid parameter (k outside 1..d, s < 1).
void validate(const CompressorSpec& spec, int dim, const char* field);

}  // namespace fedverify::theory
