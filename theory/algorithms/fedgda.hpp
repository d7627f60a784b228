// FedGDA on quadratic games (THEORY M0, M1, M2): each round every client starts at z_t = (θ_t,
// τ_t) and runs R simultaneous descent–ascent steps
//   z ← z − D(F_i(z) + ξ),   D = diag(α₁ I_p, α₂ I_q),   ξ ~ N(0, S_i),
// and the server averages the end points. With B_i = I − D M_i and P_i = Σ_{h<R} B_i^h one round is
// the affine map z' = M z + r + η with
//   M = (1/N) Σ_i B_i^R,   r = −(1/N) Σ_i P_i D m_i,   Cov(η) = (1/N²) Σ_i Σ_{h<R} B_i^h D S_i D
//   B_iʰᵀ,
// a linear-Gaussian chain like FedAvg's (F5) but with the non-symmetric M_i: exact stationary
// moments from the discrete Lyapunov equation, written in the divided form
// (I − M)/α₁ = (1/N) Σ_i P_i (D/α₁) M_i so that small steps lose no digits.
//
// First order (derived here; THEORY M2 states it for α₁ = α₂): expanding R steps to second order,
//   z_R = z − R D F_i(z) + (R(R−1)/2) D M_i D F_i(z) + O(‖D‖³R³),
// so the fixed point z_F of the noiseless round satisfies R D F̄(z_F) = (R(R−1)/2)(1/N)Σ_i D M_i D
// F_i(z_F) + …, i.e.
//   z_F − z* = ((R − 1)/(2N)) M̄⁻¹ Σ_i M_i D F_i(z*) + O(α²R²),                         (M2)
// which for α₁ = α₂ = α is THEORY's α(R − 1)(1/(2N)) J̄⁻¹ Σ_i J_i F_i(z*) (J_i = M_i). It vanishes
// for R = 1 and for identical clients (F_i(z*) = F̄(z*) = 0). The first-order covariance solves
// the continuous Lyapunov equation (D M̄)Σ + Σ(D M̄)ᵀ = D S̄ D / N (S̄ the mean noise covariance).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

// The round map in divided form: D_round = (I − M)/α₁, r/α₁, Cov(η)/α₁, γ = α₁.
AffineRoundMap fedgda_round_map(const QuadraticGame& game, const GdaSetting& setting);

// Exact stationary mean and covariance; throws InputError naming --alpha-theta when the round
// map has spectral radius ≥ 1 (no stationary law).
ExactMoments fedgda_exact(const QuadraticGame& game, const GdaSetting& setting);

// The spectral radius of M (stability of the round map; < 1 iff FedGDA converges in mean).
double fedgda_spectral_radius(const QuadraticGame& game, const GdaSetting& setting);

// First order: the fixed-point bias ((R − 1)/(2N)) M̄⁻¹ Σ_i M_i D F_i(z*) (M2, derived here) and
// the covariance of (D M̄)Σ + Σ(D M̄)ᵀ = D S̄ D / N.
struct GdaFirstOrder {
  Vector bias;  // z_F − z* to first order
  Matrix cov;
};
GdaFirstOrder fedgda_first_order(const QuadraticGame& game, const GdaSetting& setting);

}  // namespace fedverify::theory
