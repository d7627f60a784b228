// The stationary law of a random affine recursion in augmented coordinates, shared by the exact
// laws whose round map is random (THEORY (A4): reshuffled local epochs; (A2c): FedNova with random
// local steps). With u = (z, 1) ∈ ℝ^{d+1}, a round is u' = A u + ξ: A = [[M, m], [0, 1]] random, ξ
// = (η, 0) noise with E[η | A, u] = 0. Then E[u'] = E[A] E[u] and vec E[u'u'ᵀ] = T vec E[uuᵀ] + vec
// Q, T = E[A ⊗ A], Q = E[ξξᵀ] (vec stacks columns, vec(AXBᵀ) = (B ⊗ A) vec X).
#pragma once

#include "theory/base/linalg.hpp"
#include "theory/closed_forms/exact.hpp"

namespace fedverify::theory {

// A ⊗ B.
Matrix kron(const Matrix& a, const Matrix& b);

// M^k by k products from the identity (k ≥ 0: the step counts H of the exact laws).
Matrix matrix_power(const Matrix& m, int k);

// The stationary mean and covariance of z: the mean solves (I − F)z̄ = f for E[A] = [[F, f], [0,
// 1]], the second moment U the linear system vec U = T vec U + vec Q with U_{d+1,d+1} = 1 (its row
// is trivial: A's last row is e_{d+1}ᵀ), Cov = U_zz − z̄z̄ᵀ. `mean_map` is E[A], `second` T, `noise`
// Q
// ((d+1) × (d+1); zero for none). spectral_radius is ρ(F). Throws InputError naming --gamma (with
// `gamma` in the message) when ρ(F) ≥ 1 or T's block on the second moments of z has spectral
// radius ≥ 1: no stationary law. Work in coordinates where z̄ is small (about x*): the covariance
// is then not a difference of two large second moments.
ExactMoments augmented_stationary_moments(const Matrix& mean_map, const Matrix& second,
                                          const Matrix& noise, double gamma);

}  // namespace fedverify::theory
