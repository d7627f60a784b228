// L2GD+, L2SGD+ and L2SGD++ ([L2GD] §5 and appendix, THEORY (P7)): the variance-reduced L2GD
// family, exactly, on finite-sum quadratics, and the step and rate constants of their theorem.
//
// Source status (docs/THEORY-L2GD-methods.md §2–§4): the update rules of L2SGD+ are corroborated
// by two independent transcriptions of [L2GD] Algorithm 2; L2GD+ is L2SGD+ with one term per
// client (m = 1); L2SGD++'s client sampling is a reconstruction (the appendix box was not
// readable); the rate's shape is recalled and its constant c is fitted (verify/claims/
// personalised/variance_reduced.cpp), never assumed.
//
// Finite-sum quadratics: client i's f_i = (1/m) Σ_j f_ij with f_ij(x) = ½ (x − b_i)ᵀA_ij(x − b_i),
// A_ij = (1 + δ s_j) A_i, s_j = +1, −1, +1, … (m even) so that (1/m) Σ_j A_ij = A_i; m = 1 has
// A_i1 = A_i. The per-term smoothness is L̃ = (1 + δ) L.
//
// State z = (x, J, Ψ): models x_i, the SAGA memories J_ij (the last ∇f_ij computed) and Ψ_i (the
// last λ(x_i − x̄)), all started at zero. One coin ξ ~ Bernoulli(p) per iteration:
//   ξ = 0: each working client draws j uniformly and
//          x_i ← x_i − (α/n)[ (∇f_ij(x_i) − J_ij)/(q(1 − p)) + J̄_i + Ψ_i ],  J_ij ← ∇f_ij(x_i);
//          a client that does not work this step (L2SGD++ only) moves by −(α/n)(J̄_i + Ψ_i);
//   ξ = 1: x_i ← x_i − (α/n)[ (λ(x_i − x̄) − Ψ_i)/p + J̄_i + Ψ_i ],      Ψ_i ← λ(x_i − x̄).
// Memories take the pre-step x (the SAGA convention; `psi_after_step` takes λ(x_i^{k+1} − x̄^k),
// the reading of both transcriptions). L2GD+ and L2SGD+: every client works, q = 1. L2SGD++
// (reconstructed): τ of the n clients, drawn uniformly without replacement, work in a local step,
// q = τ/n, so E[1{i works}/q (∇f_ij − J_ij)] = ∇f_i − J̄_i; averaging steps involve every client.
// With control_variates = false the memories stay zero and the iteration is L2SGD (L2GD with one
// sampled term per local step).
//
// At x(λ) with J_ij = ∇f_ij(x_i(λ)), Ψ_i = λ(x_i(λ) − x̄(λ)) = −∇f_i(x_i(λ)) both branches are
// fixed: in the error coordinates every branch is linear (no offset), so E‖x^k − x(λ)‖² decays to
// zero at the rate ρ₂ of the second-moment operator (THEORY (P6)) — no neighbourhood.
#pragma once

#include <vector>

#include "theory/closed_forms/branched_moments.hpp"
#include "theory/problems/personalised_objective.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

struct FiniteSumSplit {
  int terms = 1;      // m ≥ 1 (even when > 1)
  double spread = 0;  // δ ∈ [0, 1)
};

struct VarianceReducedRule {
  int working = 0;               // τ clients per local step; 0: all (L2GD+ / L2SGD+)
  bool control_variates = true;  // false: L2SGD
  bool psi_after_step = false;   // Ψ_i ← λ(x_i^{k+1} − x̄^k) instead of λ(x_i^k − x̄^k)
};

// The branches of (P6) in error coordinates e = z − z*(λ), state layout [x | J | Ψ] (sizes nd,
// nmd, nd; client-major, term-major within a client). Branch count: C(n, τ)·m^τ + 1.
std::vector<AffineBranch> variance_reduced_branches(const QuadraticProblem& problem,
                                                    const L2gdSetting& setting,
                                                    const FiniteSumSplit& split,
                                                    const VarianceReducedRule& rule);

// e₀ for x⁰ = 0 and zero memories: (−x(λ), −∇f_ij(x_i(λ)), −λ(x_i(λ) − x̄(λ))).
Vector variance_reduced_start(const QuadraticProblem& problem, const L2gdSetting& setting,
                              const FiniteSumSplit& split);

// The constants of the rate theorem (recalled shape, [L2GD] Theorem 5.2; THEORY (P7)):
//   𝓛̃ = (1/n) max{L̃/(q(1 − p)), λ/p},  α ≤ 1/(4𝓛̃),
//   ρ ≤ max{1 − αμ/n, 1 − c q(1 − p)/m, 1 − c p}  for an absolute constant c ∈ (0, 1].
struct VarianceReducedConstants {
  double l_tilde = 0;         // per-term smoothness L̃
  double l_cal = 0;           // 𝓛̃
  double alpha_max = 0;       // 1/(4𝓛̃)
  double mu_term = 0;         // 1 − αμ/n
  double memory_refresh = 0;  // q(1 − p)/m: probability that a given J_ij is refreshed
  double coin_refresh = 0;    // p: probability that Ψ_i is refreshed
};

VarianceReducedConstants variance_reduced_constants(double mu, double l_tilde, int clients,
                                                    int terms, double working_fraction,
                                                    const L2gdSetting& setting);

// The recalled rate bound with constant c: max{mu_term, 1 − c·memory_refresh, 1 − c·coin_refresh}.
double variance_reduced_rate_bound(const VarianceReducedConstants& k, double c);

// The largest c ∈ [0, 1] with ρ ≤ the bound (the bound decreases in c): 1 when ρ ≤ mu_term or the
// bound at c = 1 already holds, min{1, (1 − ρ)/min(memory_refresh, coin_refresh)} otherwise, 0
// when ρ ≥ 1.
double largest_rate_constant(const VarianceReducedConstants& k, double rho);

}  // namespace fedverify::theory
