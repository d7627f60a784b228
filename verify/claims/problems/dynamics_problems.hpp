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
// its optimum: 𝐇 = A and C̄ = S for every N, so tr 𝒜C̄ does not depend on N and THEORY (F2)
// predicts tr Cov_π = (γ/N) tr 𝒜C̄ + O(γ²). (For identical Hessians the exact FedAvg covariance
// is exactly ∝ 1/N: Q ∝ 1/N in (F5).)
theory::QuadraticProblem shared_hessian_problem(int n);

// N clients that each hold the whole pooled data set of small_logistic(): every client has the
// same f_c = f and C_c, so x*, 𝐇 and C̄ do not depend on N, and THEORY (F2) predicts
// tr Cov_π · N/γ = tr 𝒜C̄ + O(γ) for every N.
theory::LogisticProblem pooled_clients_logistic(int n);

// `q` with every client duplicated k times: the same x*, 𝐇, C̄, ζ² with k·N clients.
theory::QuadraticProblem replicated_clients(const theory::QuadraticProblem& q, int k);

}  // namespace fedverify::claims
