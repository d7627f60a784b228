// The problems of the dynamics claims (verify/claims/dynamics/): a small logistic regression
// whose stationary cloud can be drawn, and the families of N-client problems on which the linear
// speed-up in N is measured. Every one is a pure function of fixed generator seeds.
#pragma once

#include <cstdint>

#include "theory/problems/logistic_data.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::claims {

// Generator seed of small_logistic() (written into results.json as "problem_seed").
inline constexpr std::uint64_t kSmallLogisticSeed = 11;

// d = 2 (so the stationary cloud can be drawn), 4 clients with shifted features and skewed
// labels, 40 samples each, λ = 0.3, minibatch 1.
theory::LogisticProblem small_logistic();

// Largest per-sample smoothness max_j ‖a_j‖²/4 + λ: the Lipschitz constant of every stochastic
// gradient with minibatch 1, which is what the coupling argument of THEORY (F1) needs (f_c's own
// L is only the bound for the full gradient).
double per_sample_smoothness(const theory::LogisticProblem& p);

// N clients sharing q-small's first Hessian A and noise S, optima b_c on a unit circle around
// its optimum: 𝐇 = A and C̄ = S for every N, ζ² > 0 but b_h = 0 (equal Hessians), so FedAvg's
// fixed point is x* exactly (THEORY (F4)).
theory::QuadraticProblem shared_hessian_problem(int n);

// N HETEROGENEOUS clients whose average Hessian 𝐇 and average noise C̄ are the same for every N:
// A_c = 𝐇^{1/2}(I + δ(G_c − Ḡ))𝐇^{1/2}, S_c = C̄^{1/2}(I + δ(K_c − K̄))C̄^{1/2}, δ = 0.6, with
// symmetric G_c, K_c from low-discrepancy angles of client c (Ḡ, K̄ their means over the N
// clients), optima on a unit circle. The clients' second moments (1/N) Σ_c A_c², (1/N) Σ_c A_cS_c
// change with N, so the exact covariance is NOT ∝ 1/N: THEORY (F2) predicts
// tr Cov_π = (γ/N) tr 𝒜C̄ + O(γ²) with tr 𝒜C̄ fixed, and the O(γ²) part moves with N.
theory::QuadraticProblem heterogeneous_speedup_problem(int n);

// N heterogeneous logistic clients: small_logistic()'s generator with N clients (each client's
// data depend only on the seed and its index; feature shift and label skew make x*, 𝐇 and C̄
// change with N).
theory::LogisticProblem heterogeneous_logistic(int n);

// `q` with every client duplicated k times: the same x*, 𝐇, C̄, ζ² with k·N clients.
theory::QuadraticProblem replicated_clients(const theory::QuadraticProblem& q, int k);

// `p` with every client (its data) duplicated k times: the same objective f = (1/N) Σ_c f_c, so
// the same x*, 𝐇 and C̄, with k·N clients whose gradient noises are independent — the logistic
// family on which the noise averaged over the clients is C̄/N exactly.
theory::LogisticProblem replicated_clients(const theory::LogisticProblem& p, int k);

}  // namespace fedverify::claims
