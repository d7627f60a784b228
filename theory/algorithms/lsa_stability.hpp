// Where FedAvg and Scaffold are stable on a linear-sa problem (THEORY (L1), "Stability"): the mean
// of a round follows its deterministic map M, and the second moment the operator
//   T(S) = M S Mᵀ + 𝒩(S),
// 𝒩 the part of the round's noise linear in the state's second moment (the multiplicative noise
// E[(A − Ā) S (A − Ā)ᵀ] along the local steps). The chain has a finite stationary mean iff
// ρ(M) < 1, and a finite stationary second moment iff ρ(T) < 1 (mean-square stability). T
// preserves the positive semi-definite cone and dominates S ↦ M S Mᵀ, so ρ(T) ≥ ρ(M)²: a
// mean-square stable chain is mean stable, and with multiplicative noise the converse can fail
// (a band of steps where the mean converges and the second moment does not).
// Both radii are computed exactly (dense eigenvalues): M directly (FedAvg's d × d; Scaffold's
// stacked map on Σ_c ξ_c = 0, dN × dN), and T as the matrix of its action on a basis of the
// symmetric matrices (m(m + 1)/2 columns, m = d or dN), built from the same building blocks as
// the exact moments (linear_sa_moments.hpp's lsa_client_noise_linear; Scaffold's stacked round,
// scaffold_lsa_stacked.hpp), with each client's H noise steps as one matrix (the step probed on a
// basis, then raised to the power H by squaring). Cost: N·O(d⁶ log H) for the clients' maps,
// m(m + 1)/2 applications of 𝒩, and a dense eigenvalue problem of that size — meant for maps on
// small problems (m ≲ 20).
#pragma once

#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

struct LsaStability {
  double mean_radius = 0;         // ρ(M)
  double mean_square_radius = 0;  // ρ(T) on the symmetric matrices
  bool mean_stable() const { return mean_radius < 1; }
  bool mean_square_stable() const { return mean_square_radius < 1; }
};

// FedAvg or Scaffold (std::invalid_argument for another algorithm); Scaffold's radii are on its
// invariant subspace Σ_c ξ_c = 0. Non-finite maps (overflow at huge γ) give infinite radii.
LsaStability lsa_stability(const LinearSaProblem& problem, Algorithm algorithm,
                           const RunSetting& setting);

}  // namespace fedverify::theory
