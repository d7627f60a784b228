// Deterministic FedGDA on a smooth (non-quadratic) game (THEORY M0, M8): each round every client
// i starts at z_t and runs R simultaneous steps z ← z − D F_i(z), D = diag(α₁ I_p, α₂ I_q); the
// server averages the end points. On a non-convex–PL game (pl_game.hpp) the round is a smooth map
// z' = Ψ(z) with Jacobian (1/N) Σ_i Π_{r=R−1..0} (I − D J_i(z_{i,r})); its fixed points are the
// limit points of FedGDA, and a fixed point attracts nearby iterates iff ρ(DΨ) < 1.
#pragma once

#include "theory/base/linalg.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/pl_game.hpp"

namespace fedverify::theory {

struct GdaRound {
  Vector z;         // Ψ(z)
  Matrix jacobian;  // DΨ(z)
};
// One round from z (with its Jacobian when `with_jacobian`).
GdaRound fedgda_round(const PlGame& game, const GdaSetting& setting, const Vector& z,
                      bool with_jacobian);

// The fixed point of Ψ nearest to `start` by Newton's method on Ψ(z) − z, with one step past
// ‖Ψ(z) − z‖ ≤ 1e-14 (1 + ‖z‖): its error is then the round-off of evaluating Ψ (≈ R ε ‖z‖ per
// round) amplified by ‖(I − DΨ)⁻¹‖. Throws std::runtime_error when Newton does not converge in 50
// iterations.
Vector fedgda_fixed_point(const PlGame& game, const GdaSetting& setting, const Vector& start);

// ρ(DΨ(z)), the spectral radius of the round's Jacobian.
double fedgda_round_spectral_radius(const PlGame& game, const GdaSetting& setting, const Vector& z);

// The first-order offset of the fixed point from a stationary point z* (F̄(z*) = 0): THEORY (M2)
// with the game's Jacobians at z* (fedgda_offset_first_order).
Vector fedgda_smooth_offset_first_order(const PlGame& game, const GdaSetting& setting,
                                        const Vector& z_star);

}  // namespace fedverify::theory
