// Exact stationary mean and covariance of the chain algorithms on linear stochastic approximation
// problems with multiplicative noise (THEORY (L1)): the building blocks shared by FedAvg, Scaffold,
// FedRR and FedOpt (theory/algorithms/*_lsa.cpp).
//
// A local step y' = (I − γA(Z)) y + γ b(Z) − γξ (ξ: Scaffold's correction, fixed in the round) is
// affine with random coefficients independent of (y, ξ), so the first two moments close:
//   E y'  = B E y + γ(b̄ − E ξ),   B = I − γĀ,
//   Cov y' = B Cov(y) Bᵀ − γ(B Cov(y, ξ) + Cov(ξ, y) Bᵀ) + γ² Cov ξ + γ² E_y[C(y)],
// where E_y[C(y)] (LinearSaProblem::expected_noise_covariance, the one place where the minibatch
// operator E[Ḡ ⊗ Ḡ] = (1/B)E[G ⊗ G] + (1 − 1/B)E[G] ⊗ E[G] enters) is linear in Cov(y) and
// quadratic in E y. The noise a client adds in its H steps, ε = y_H − E[y_H | y_0, ξ], is
// uncorrelated with (y_0, ξ) and with the other clients' ε, so one round is
//   Cov z' = M Cov(z) Mᵀ + Q(Cov z),
// M the deterministic round map and Q affine in Cov z with an O(γ²H) linear part 𝒩. The
// stationary covariance solves X = M X Mᵀ + Q(0) + 𝒩(X); it is found by the iteration
//   X_{k+1} = L⁻¹(Q(0) + 𝒩(X_k)),   L X = X − M X Mᵀ,
// with one Schur form of M for all k (DiscreteLyapunovSolver). Both L⁻¹ and 𝒩 preserve the
// positive semi-definite cone, so the iteration converges iff the second moment is finite
// (ρ(L⁻¹𝒩) < 1, mean-square stability), geometrically at rate ρ(L⁻¹𝒩) = O(γ·‖Cov A‖/μ).
// FedOpt (fedopt_lsa.cpp) adds the sampled clients' random coefficients to Q (THEORY (O5)).
// Cost per iteration: N·H steps of O(d³) (dense samples: O(K d³) for K samples; least squares:
// O(n d²), the rank-one samples a aᵀ X a aᵀ = (aᵀXa) a aᵀ).
#pragma once

#include <functional>

#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

// A client's H-step mean map: y_H = B^H y_0 + γ P (b̄ − ξ), P = Σ_{h<H} B^h,
// B = I − γ(Ā_c + μ_p I). Summed term by term (no Ā_c⁻¹: Ā_c may be ill-conditioned or
// non-symmetric). μ_p = `prox` is FedProx's proximal weight (THEORY (O3): its step adds
// −γμ_p(y − x), i.e. Ā_c + μ_p I and ξ = −μ_p x); 0 for SGD steps.
struct LsaLocalMap {
  Matrix b_power;  // B^H
  Matrix p;        // P = Σ_{h<H} B^h;  (I − B^H)/γ = P (Ā_c + μ_p I)
};
LsaLocalMap lsa_local_map(const Matrix& mean_a, double gamma, int steps, double prox = 0.0);

// The moments of one client's H local steps y' = (I − γ(A(Z) + μ_p I)) y + γ b(Z) − γξ from y_0
// (mean start_mean, covariance start_cov), with a correction ξ fixed in the round (mean
// correction_mean; cross = Cov(y_0, ξ), correction_cov = Cov ξ), or none (FedAvg:
// correction_mean = 0 and both pointers null). Scaffold: ξ its control variate, μ_p = 0.
// FedProx (THEORY (O3)): μ_p = `prox` and ξ = −μ_p y_0 (mean −μ_p E y_0, cross −μ_p Cov y_0,
// correction_cov μ_p² Cov y_0). The proximal term is deterministic given (y, ξ): the noise of a
// step is that of A(Z)y − b(Z) whatever μ_p.
struct LsaClientRound {
  Vector mean;              // E y_H
  Matrix noise_over_gamma;  // Cov(ε)/γ, ε = y_H − E[y_H | y_0, ξ]
};
LsaClientRound lsa_client_round(const LinearSaProblem& problem, int client, double gamma, int steps,
                                const Vector& start_mean, const Matrix& start_cov,
                                const Vector& correction_mean, const Matrix* cross,
                                const Matrix* correction_cov, double prox = 0.0);

// The part of noise_over_gamma linear in the covariances, 𝒩 of THEORY (L1): the recursion above
// with only the E_Z[ΔA Cov(y_h) ΔAᵀ]/B term of the noise, from Cov(y_0) = start_cov, Cov(y_0, ξ) =
// cross, Cov ξ = correction_cov (no Cov(ε) from the mean: noise_over_gamma at zero covariances).
Matrix lsa_client_noise_linear(const LinearSaProblem& problem, int client, double gamma, int steps,
                               const Matrix& start_cov, const Matrix& cross,
                               const Matrix& correction_cov);

// One step of lsa_client_noise_linear's recursion (the state after h steps: v = the noise so far
// over γ, k = Cov(y_h), x = Cov(y_h, ξ); b = I − γĀ_c, cc = Cov ξ fixed in the round). Linear in
// (v, k, x, cc): lsa_stability.cpp builds the matrix of H steps from it.
struct LsaNoiseState {
  Matrix v, k, x;
};
void lsa_noise_step(const LinearSaProblem& problem, int client, double gamma, const Matrix& b,
                    const Matrix& cc, LsaNoiseState& state);

// The cost of the closed forms above is linear in H (each fixed-point iteration runs every
// client's H local steps; only the stability test, lsa_stability.hpp, is logarithmic in H). Before
// any work, require_lsa_exact_affordable estimates a lower bound of that time from the operation
// count of one local step (lsa_step_flops: the congruences B·K·Bᵀ of the recursion, ≈ 10 d³, and
// the noise's expectation: 4 K d³ for K dense samples, 6 n d² for n least-squares rows, plus a
// fixed cost per step) over kLsaMinimumPasses passes of N·H steps, and throws
// InputError naming --local-steps (limits::require_closed_form_time, --max-seconds) when it
// exceeds the limit. `what` names the algorithm.
inline constexpr int kLsaMinimumPasses = 2;  // Q(0) and at least one fixed-point iteration
double lsa_step_flops(const LinearSaProblem& problem, int client);
// The lower bound of the closed forms' time that require_lsa_exact_affordable compares.
double lsa_exact_seconds(const LinearSaProblem& problem, const RunSetting& setting);
void require_lsa_exact_affordable(const LinearSaProblem& problem, const RunSetting& setting,
                                  const char* what);
// The closed forms above assume steps drawn with replacement; a reshuffled problem (THEORY (A4))
// has its exact law only for FedAvg with a server step (theory/algorithms/local_epochs.hpp):
// throws InputError naming "sampling" for the others. require_lsa_exact_affordable calls it.
void require_with_replacement(const LinearSaProblem& problem, const char* what);

// The stationary X of X = M X Mᵀ + Q(X), solver = L's Schur form, q(X) = Q(X) (affine, in the
// divided form of `solver`: Q/γ when the solver is in divided form). Iterates as above until the
// remaining error bound ‖ΔX‖ρ/(1 − ρ) is below kLsaFixedPointTolerance·‖X‖ (ρ estimated from
// successive steps). Throws InputError naming --gamma when the iteration does not contract (no
// finite second moment: mean-square unstable), `what` names the algorithm.
inline constexpr double kLsaFixedPointTolerance = 1e-15;
Matrix lsa_stationary_covariance(const DiscreteLyapunovSolver& solver,
                                 const std::function<Matrix(const Matrix&)>& q, int size,
                                 const RunSetting& setting, const char* what);

}  // namespace fedverify::theory
