// The explicit bounds of the theorems whose SHAPE fedverify checks: the W2 contraction of
// FedAvg (THEORY (F1)) and Scaffold's finite-time bound (THEORY (S5)). Each function is the
// formula beside its label; the claims compare measured or exact curves with them.
//
// (F1) is a bound with explicit constants: a measured distance above it (beyond round-off or
// sampling noise) refutes it. (S5) holds "up to absolute constants" (≲), so only its shape is
// checkable: a finite smallest constant C with E‖x_t − x*‖² ≤ C·bound(t), and a decay at least as
// fast as its rate.
#pragma once

#include "theory/problems/algorithm.hpp"

namespace fedverify::theory {

// (F1) Contraction factor of one FedAvg round, (1 − γμ)^H: γ ≤ 1/L makes every local map
// (1 − γμ)-Lipschitz (with L the per-sample smoothness for minibatch gradients).  THEORY (F1)
double fedavg_round_contraction(const RunSetting& step, double mu);

// (F1) Contraction factor over t rounds, (1 − γμ)^{Ht}: W2(law(x_t), π) ≤ this · W2(law(x₀), π),
// and ‖x_t − x'_t‖ ≤ this · ‖x₀ − x'₀‖ for synchronously coupled chains.         THEORY (F1)
double fedavg_contraction(const RunSetting& step, double mu, int rounds);

// (F1) The same as a rate per local step: −log(1 − γμ).                         THEORY (F1)
double fedavg_contraction_rate(const RunSetting& step, double mu);

// (S5) Scaffold's finite-time bound without its hidden absolute constant, on a problem with
// ∇³f = 0 (the Q terms vanish):
//   E‖x_t − x*‖² ≲ ρ^{Ht} B₀ + γσ*²/(Nμ),   ρ = 1 − γμ/4,
//   B₀ = ‖x₀ − x*‖² + 2γ²H²ζ² + σ*²/(Lμ).                                       THEORY (S5)
struct ScaffoldFiniteTimeBound {
  double rho = 0;               // ρ = 1 − γμ/4, per local step
  double initial = 0;           // B₀
  double stationary = 0;        // γσ*²/(Nμ)
  int local_steps = 1;          // H
  double at(int rounds) const;  // ρ^{Ht} B₀ + γσ*²/(Nμ)
  double rate() const;          // −log ρ: decay rate of the transient per local step
};
ScaffoldFiniteTimeBound scaffold_finite_time_bound(const RunSetting& step, double mu, double l,
                                                   double zeta2, double sigma_star2, int clients,
                                                   double initial_distance2);

}  // namespace fedverify::theory
