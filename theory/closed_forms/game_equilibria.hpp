// Client ε-equilibria of quadratic games (THEORY M3, derived here; [Thesis] §3.3 states the
// relation informally). Client i of a quadratic game (quadratic_game.hpp) has
//   f_i(θ, τ) = ½ θᵀA_iθ + θᵀB_iτ − ½ τᵀC_iτ + a_iᵀθ − c_iᵀτ,   F_i(z) = (∇_θ f_i, −∇_τ f_i).
// At a point z = (θ, τ) client i's two errors are
//   first order (M3a):   ‖F_i(z)‖, its stationarity residual;
//   duality gap (M3a):   gap_i(z) = max_τ' f_i(θ, τ') − min_θ' f_i(θ', τ).
// With A_i, C_i ≻ 0 both best responses are linear solves and the gap is an exact quadratic form
// in the residual (M3b):
//   gap_i(z) = ½ g_θᵀ A_i⁻¹ g_θ + ½ g_τᵀ C_i⁻¹ g_τ,   (g_θ, g_τ) = F_i(z),
// so ‖F_i(z)‖² / (2 L_i) ≤ gap_i(z) ≤ ‖F_i(z)‖² / (2 μ_i) with μ_i, L_i the smallest and largest
// eigenvalue of A_i and C_i together (the constant ½ is attained: F_i(z) along an eigenvector of
// eigenvalue μ_i). At the federated equilibrium F̄(z*) = 0, so F_i(z*) = F_i(z*) − F̄(z*) and
// ‖F_i(z*)‖ is exactly the gradient dissimilarity ζ_i of [Thesis] Assumption 3 at z*:
//   ε_i := gap_i(z*) ≤ ζ_i(z*)² / (2 μ_i).                                              (M3c)
// Assumption 3 as printed bounds ζ_i uniformly over all (θ, τ); on a quadratic game
// F_i(z) − F̄(z) = (M_i − M̄) z + (m_i − m̄) is unbounded unless M_i = M̄, so the uniform bound is
// finite only for identical Hessian blocks. Known at one point z₀ only, it reaches z* through the
// Hessian dissimilarity ρ_i = ‖M_i − M̄‖₂ ≤ max(ρ_θ, ρ_τ) + ρ_θτ (Assumption 4's blocks):
//   ζ_i(z*) ≤ ζ_i(z₀) + ρ_i ‖z* − z₀‖,   ε_i ≤ (ζ_i(z₀) + ρ_i ‖z* − z₀‖)² / (2 μ_i).     (M3d)
#pragma once

#include "theory/base/linalg.hpp"
#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

// The constant of (M3c): gap_i ≤ kGapConstant · ζ_i² / μ_i.
inline constexpr double kGapConstant = 0.5;

// f_i(θ, τ).
double client_objective(const QuadraticGame& game, int client, const Vector& theta,
                        const Vector& tau);

// gap_i(z) by its definition: the best responses τ' = argmax f_i(θ, ·) and θ' = argmin f_i(·, τ)
// by linear solves, then f_i(θ, τ') − f_i(θ', τ) (the measurement; needs A_i, C_i ≻ 0).
double client_gap_by_best_responses(const QuadraticGame& game, int client, const Vector& z);

// gap_i(z) in closed form (M3b): ½ F_i(z)ᵀ diag(A_i⁻¹, C_i⁻¹) F_i(z).
double client_gap(const QuadraticGame& game, int client, const Vector& z);

// Everything (M3) says about client i at the federated equilibrium z*.
struct ClientEpsilon {
  double residual = 0;       // ‖F_i(z*)‖ = ζ_i(z*) (first-order ε)
  double zeta_theta = 0;     // ‖∇_θ f_i(z*) − ∇_θ f̄(z*)‖ (Assumption 3 at z*)
  double zeta_tau = 0;       // ‖∇_τ f_i(z*) − ∇_τ f̄(z*)‖
  double gap = 0;            // gap_i(z*) in closed form (M3b)
  double rho_theta = 0;      // ‖A_i − Ā‖₂ (Assumption 4)
  double rho_tau = 0;        // ‖C_i − C̄‖₂
  double rho_theta_tau = 0;  // ‖B_i − B̄‖₂
  double rho = 0;            // ‖M_i − M̄‖₂
  double mu = 0;             // smallest eigenvalue of A_i and C_i
  double l = 0;              // largest eigenvalue of A_i and C_i
  double bound = 0;          // (M3c): kGapConstant · residual² / mu
  double lower = 0;          // residual² / (2 l)
};
ClientEpsilon client_epsilon(const QuadraticGame& game, int client);

// ζ_i(z₀) = ‖F_i(z₀) − F̄(z₀)‖ and the bound of (M3d) on ε_i from it.
double gradient_dissimilarity(const QuadraticGame& game, int client, const Vector& z0);
double gap_bound_from_point(const QuadraticGame& game, int client, const Vector& z0);

}  // namespace fedverify::theory
