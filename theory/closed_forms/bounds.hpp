// The explicit bounds of the theorems whose SHAPE fedverify checks: the W2 contraction of
// FedAvg (THEORY (F1)) and the finite-time bounds of Scaffold (THEORY (S5)) and FedAvg (THEORY
// (T3)). Each function is the formula beside its label; the claims compare measured or exact
// curves with them.
//
// (F1) is a bound with explicit constants: a measured distance above it (beyond round-off or
// sampling noise) refutes it. (S5) and (T3) hold "up to absolute constants" (≲): the claim
// dynamics.finite-time-bounds fits the smallest C with E‖x_t − x*‖² ≤ C·bound(t) on training
// problems and tests it on held-out ones.
#pragma once

#include "theory/closed_forms/expansions.hpp"
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

// A finite-time bound of the form  E‖x_t − x*‖² ≲ ρ^{Ht} B₀ + floor  (its hidden absolute
// constant left out): (S5) for Scaffold, (T3) for FedAvg.
struct FiniteTimeBound {
  double rho = 0;               // per local step
  double initial = 0;           // B₀
  double stationary = 0;        // the floor the bound keeps as t → ∞
  int local_steps = 1;          // H
  double at(int rounds) const;  // ρ^{Ht} B₀ + floor
  double rate() const;          // −log ρ: decay rate of the transient per local step
};

// (S5) Scaffold's finite-time bound as seed 000 prints it, with Q a bound on ∇³f_c (0 on
// quadratics and linear-sa problems; theory/problems/third_derivative_bound.hpp):
//   E‖x_t − x*‖² ≲ ρ^{Ht} B₀ + γσ*²/(Nμ) + γ^{3/2}Qσ*³/μ^{5/2} + γ³HQ²σ*⁴/μ³,  ρ = 1 − γμ/4,
//   B₀ = ‖x₀ − x*‖² + 2γ²H²ζ² + σ*²/(Lμ).                                 THEORY (S5)
FiniteTimeBound scaffold_finite_time_bound(const RunSetting& step, double mu, double l,
                                           double zeta2, double sigma_star2, int clients,
                                           double initial_distance2, double q = 0);

// (T3) FedAvg's finite-time bound of seed 000, ‖x_T − x*‖² ≲ (1 − γμ)^{HT}‖x₀ − x*‖² + χ, with
// the unspecified floor χ taken as the first-order stationary E_π‖x − x*‖² of (F2), (F3),
// ‖γ((H − 1)b_h + b_s)‖² + tr (γ/N)𝒜C̄ (first_order_floor).              THEORY (T3)
FiniteTimeBound fedavg_finite_time_bound(const RunSetting& step, double mu, double floor,
                                         double initial_distance2);

// (T3)'s χ: ‖E_π x − x*‖² + tr Cov_π at first order, from theory::first_order (any algorithm's
// first-order moments; FedAvg's for (T3)).                                         THEORY (T3)
double first_order_floor(const FirstOrderMoments& first);

}  // namespace fedverify::theory
