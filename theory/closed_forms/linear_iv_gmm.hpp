// The GMM estimator of linear instrumental-variable models (THEORY M5) and the equilibrium of
// its game. For U(θ, τ) = τᵀ(b − Gθ) − ¼ τᵀWτ (theory/problems/linear_iv.hpp; W ≻ 0, G of full
// column rank) the inner maximum is at τ(θ) = 2W⁻¹(b − Gθ) with value (b − Gθ)ᵀW⁻¹(b − Gθ), so the
// minimax solution is the GMM estimator with weighting W⁻¹,
//   θ_GMM = (Gᵀ W⁻¹ G)⁻¹ Gᵀ W⁻¹ b,   τ* = 2 W⁻¹(b − G θ_GMM).                              (M5)
// For the federated game (3.20) G, b, W are the clients' averages.
//
// Numerical strategy: W⁻¹ through its Cholesky factor (W = LLᵀ), then a least-squares solve of
// L⁻¹G θ ≈ L⁻¹b by column-pivoted Householder QR, which is backward stable and never forms the
// normal equations' GᵀW⁻¹G (whose condition number is the square of L⁻¹G's).
#pragma once

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct GmmEquilibrium {
  Vector theta;  // θ_GMM
  Vector tau;    // τ* = 2W⁻¹(b − Gθ_GMM)
};

// Throws InputError naming "W" when W is not positive definite, "G" when G is not of full
// column rank.
GmmEquilibrium gmm_estimator(const Matrix& g, const Matrix& w, const Vector& b);

}  // namespace fedverify::theory
