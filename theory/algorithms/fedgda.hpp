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

#include <vector>

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

// Stability with one local step (THEORY M7, derived here): for R = 1 the round map is
// M = I − D M̄ whatever the clients, D = α₁ diag(I_p, ρ I_q) with ρ = α₂/α₁, so its eigenvalues are
// 1 − α₁ μ for the eigenvalues μ of diag(I_p, ρ I_q) M̄, and |1 − α₁μ| < 1 iff α₁ < 2 Re μ / |μ|².
// FedGDA (R = 1) is therefore stable exactly for
//   α₁ < α₁,max = min_μ 2 Re μ / |μ|²,                                                         (M7)
// and for no α₁ when some Re μ ≤ 0 — as in the bilinear game (A = C = 0), where diag(1, ρ)M̄ is
// similar to a skew-symmetric matrix, μ = ±i√ρ σ_j(B̄), and ρ(M) = √(1 + α₁α₂ σ_max(B̄)²) > 1.
// Returns α₁,max (0 when no step is stable).
double fedgda_step_limit(const QuadraticGame& game, double step_ratio);

// First order: the fixed-point bias ((R − 1)/(2N)) M̄⁻¹ Σ_i M_i D F_i(z*) (M2, derived here) and
// the covariance of (D M̄)Σ + Σ(D M̄)ᵀ = D S̄ D / N.
struct GdaFirstOrder {
  Vector bias;  // z_F − z* to first order
  Matrix cov;
};
GdaFirstOrder fedgda_first_order(const QuadraticGame& game, const GdaSetting& setting);

// (M2) on any smooth game (the expansion above uses only the operators and their Jacobians at the
// equilibrium; THEORY M8 checks it on non-convex–PL games): from J_i = DF_i(z*), F_i(z*) with
// F̄(z*) = 0 and the first p coordinates descending,
//   z_F − z* = ((R − 1)/(2N)) J̄⁻¹ Σ_i J_i D F_i(z*) + O(α²R²).
Vector fedgda_offset_first_order(const std::vector<Matrix>& jacobians,
                                 const std::vector<Vector>& operators, int theta_dim,
                                 const GdaSetting& setting);

}  // namespace fedverify::theory
