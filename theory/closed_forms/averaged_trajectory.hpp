// Polyak–Ruppert averaging in finite time (THEORY (T5)): the exact first two moments of the
// running average x̄_T = (1/T) Σ_{t=1}^T x_t of a linear Gaussian chain (theory/closed_forms/
// trajectory.hpp's affine round maps, from z_0 = (x0, 0, …, 0)), for every T.
//
// With S_T = Σ_{t≤T} z_t, P_t = Cov z_t, C_T = Cov(S_T, z_T) and V_T = Cov S_T: since z_{T+1} =
// M z_T + γr + η with η independent of S_T,
//     P_{T+1} = M P_T Mᵀ + γG,   C_{T+1} = C_T Mᵀ + P_{T+1},
//     V_{T+1} = V_T + C_T Mᵀ + M C_Tᵀ + P_{T+1},
// from C_1 = V_1 = P_1; E x̄_T is the average of the E x_t and Cov x̄_T the x block of V_T / T².
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/trajectory_moments.hpp"

namespace fedverify::theory {

// THEORY (T5): mean[T] = E x̄_T and trace_cov[T] = tr Cov x̄_T for T = 1 … rounds; entry 0 is the
// start x0 (no average yet, covariance 0). The cost check and errors are affine_trajectory's
// (InputError naming --rounds).
TrajectoryMoments averaged_trajectory(const AffineRoundMap& map, const Vector& x0, int rounds);

// THEORY (T5): the exact long-run covariance of the stationary chain's x block, the limit of
// T·Cov x̄_T: Σ_LR = Σ_k Cov(z_0, z_k) + Cov(z_k, z_0) − P_∞ = (I − M)⁻¹P_∞ + P_∞(I − M)⁻ᵀ − P_∞,
// which P_∞ − MP_∞Mᵀ = γG turns into (I − M)⁻¹γG(I − M)⁻ᵀ — no Lyapunov solve: with I − M = γD,
// [D⁻¹GD⁻ᵀ/γ]_x. Requires D invertible (the caller's map contracts).
Matrix long_run_covariance(const AffineRoundMap& map, int dim);

// THEORY (T5): the Polyak–Ruppert limit per round, 𝐇⁻¹C̄𝐇⁻¹/(NH): a round moves x by −γH∇f plus
// the mean of NH independent gradient noises, so T·Cov x̄_T → Σ_LR = 𝐇⁻¹C̄𝐇⁻¹/(NH) + O(γ) for
// FedAvg, whatever γ (the asymptotically optimal covariance of NHT gradients); exactly, at every γ,
// when H = 1 (an AR(1) with I − M = γ𝐇 and noise γ²C̄/N).
Matrix polyak_ruppert_covariance(const ExpansionCoefficients& k, const RunSetting& setting);

}  // namespace fedverify::theory
