// Scaffold's stacked round on a linear-sa problem (THEORY (L1), (S0)), in the Helmert coordinates
// of Σ_c ξ_c = 0: the deterministic map and the assembly of a round's noise from the clients'.
// Shared by the dense exact solve (scaffold_lsa.cpp) and the stability test (lsa_stability.cpp).
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

struct ScaffoldLsaStacked {
  int dim = 0;          // d
  int num_clients = 0;  // N
  // T = blockdiag(I_d, Helmert ⊗ I_d), (d(N + 1)) × dN: an orthonormal basis of Σ_c ξ_c = 0 in
  // the stacked state (x, ξ_1, …, ξ_N).
  Matrix t;
  // Tᵀ(I − M)T, M the stacked round map, written blockwise from the local maps:
  //   (I − M)_xx = γD,  (I − M)_{x,ξ_e} = γP_e/N,  (I − M)_{ξ_c,x} = (P_cĀ_c − D)/H,
  //   (I − M)_{ξ_c,ξ_e} = δ_ce P_c/H − P_e/(NH),     D = (1/N) Σ_c P_c Ā_c.
  Matrix e_reduced;
};

// Throws InputError naming --gamma when the map overflows double precision.
ScaffoldLsaStacked scaffold_lsa_stacked(const LinearSaProblem& problem, const RunSetting& setting);

// The noise of a round in the Helmert coordinates, Tᵀ Q T, from the clients' Ṽ_c = Cov(ε_c)/γ
// (ε_c the noise of client c's H steps; x' = (1/N) Σ_c y_c, ξ_c' = ξ_c + (y_c − x')/(γH)):
//   Q_xx = γ V̄/N,  Q_{x,ξ_c} = (Ṽ_c − V̄)/(NH),
//   Q_{ξ_c,ξ_e} = (δ_ce Ṽ_c − (Ṽ_c + Ṽ_e)/N + V̄/N)/(γH²),   V̄ = (1/N) Σ_c Ṽ_c.
Matrix scaffold_lsa_round_noise(const ScaffoldLsaStacked& stacked, const std::vector<Matrix>& v,
                                const RunSetting& setting);

}  // namespace fedverify::theory
