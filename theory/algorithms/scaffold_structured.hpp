// Scaffold's exact stationary moments for many clients: the structured solve of THEORY (S6a)
// (derived here) instead of the dense Lyapunov equation of size d(N + 1) of scaffold_exact_dense;
// scaffold_exact uses it at every size.
//
// Numerical strategy. On the invariant subspace Σ_c ξ_c = 0, write w_c = γHξ_c, each client's
// w_c in the eigenbasis of its Hessian (A_c = V_c diag(a_c) V_cᵀ) and x in the eigenbasis of
// D̄ = (1/N) Σ_c P_c A_c. In these coordinates the round map is M = Λ + U Vᵀ: Λ diagonal (the
// eigenvalues 1 − γδ of the server block and κ = 1 − p/H of the client blocks I − P_c/H), U and
// V of rank 3d (the clients are coupled only through x and through their average). The
// stationary covariance S solves  S − ΛSΛ = Q + 𝒫(Y),  Y = VᵀS  (3d × d(N+1)),  with 𝒫 linear:
//   - S − ΛSΛ is inverted entrywise, by 1 − λ_iλ_j = ν_i + ν_j − ν_iν_j formed from ν = 1 − λ
//     computed analytically (γδ and p/H), so nothing of order γ is a difference of O(1) numbers;
//   - Y solves the linear system Y − Vᵀ[𝒫(Y) ⊘ Ω] = Vᵀ[Q ⊘ Ω] of 3d·d(N+1) unknowns, by
//     restarted GMRES on block-scaled unknowns, to a relative residual kGmresTolerance; one
//     product costs O(d·(dN)²) (three products of a d(N+1) × 3d and a 3d × d(N+1) matrix);
//   - the blocks are rotated back to the stacked (x, ξ_1, …, ξ_N) coordinates, O(N²d³).
// The spectral radius: when γH·max_c λ_max(A_c) ≤ 1 every eigenvalue of M is real and the largest
// is the largest root in (max κ, 1) of det T(z) = 0, T(z) = I − (1/N) Σ_c V_c diag(ρ_c/(z − κ_c))
// V_cᵀ with ρ = (p/H)(1 − γaH) ≥ 0; λ_min(T(z)) increases with z, so the root is found by
// bisection to a relative 4ε (THEORY (S6a)). Otherwise the eigenvalues of the dense (dN)×(dN)
// map are computed (O((dN)³)).
// The stationary mean is the fixed point of (S0) in closed form: x = x*, ξ_c = A_c(b_c − x*).
// Cost, measured on the 2-core development machine: bench/README.md ("Exact engine").
#pragma once

#include "theory/closed_forms/exact.hpp"

namespace fedverify::theory {

// GMRES stops when the residual of the block-scaled system is below this fraction of its
// right-hand side (a few ulps of the unknowns: the result then agrees with the dense solve to
// round-off times the conditioning of the Lyapunov operator).
inline constexpr double kGmresTolerance = 1e-15;

// The stationary moments of Scaffold (THEORY S6) by the structured solve above: the same
// quantities as scaffold_exact, to round-off. Throws InputError("--gamma: …") when the round map
// does not contract on Σ_c ξ_c = 0, and std::runtime_error if GMRES does not converge (not seen
// on any stationary setting; a bug report, not an input error).
ScaffoldExactMoments scaffold_exact_structured(const QuadraticProblem& problem,
                                               const RunSetting& setting);

// The spectral radius of the round map on Σ_c ξ_c = 0 (THEORY S6a), as scaffold_spectral_radius.
double scaffold_spectral_radius_structured(const QuadraticProblem& problem,
                                           const RunSetting& setting);

}  // namespace fedverify::theory
