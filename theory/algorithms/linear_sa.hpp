// The exact stationary moments of FedAvg, Scaffold, FedRR and FedOpt on linear stochastic
// approximation problems with multiplicative noise (THEORY (L1)), from the building blocks of
// theory/closed_forms/linear_sa_moments.hpp. Registered through AlgorithmTheory::exact_linear_sa.
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/linear_sa_moments.hpp"
#include "theory/closed_forms/trajectory_moments.hpp"
#include "theory/problems/fednova_setting.hpp"

namespace fedverify::theory {

// FedAvg (F0) on a linear-sa problem. The stationary mean is the deterministic fixed point of the
// mean field (THEORY (L1)): Σ_c P_c (Ā_c m − b̄_c) = 0, P_c = Σ_{h<H} (I − γĀ_c)^h (no Ā_c⁻¹).
// The covariance solves Σ = MΣMᵀ + Q(Σ), M = I − γD, D = (1/N) Σ_c P_c Ā_c, Q(Σ) = (1/N²) Σ_c
// Cov(ε_c) (the noise of client c's H steps started from x ~ (m, Σ)), by the fixed-point
// iteration of lsa_stationary_covariance in the divided form (D, Q/γ). Throws InputError naming
// --gamma when M does not contract or the second moment is infinite. SGD is H = 1.
ExactMoments fedavg_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting);
// The same with Gaussian noise N(0, server_variance·I) added to x_{t+1} every round (DP-FedAvg
// without clipping, THEORY (A5)): Q(Σ) gains server_variance·I.
ExactMoments fedavg_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting,
                              double server_variance);

// The stationary mean alone (the fixed point above), cheap: N·H products of d×d matrices.
Vector fedavg_mean_lsa(const LinearSaProblem& problem, const RunSetting& setting);

// Scaffold (S0) on a linear-sa problem: the stacked state (x, ξ_1, …, ξ_N) on Σ_c ξ_c = 0. The
// mean is the fixed point x = x*, ξ_c = −(Ā_c x* − b̄_c); the covariance solves the stacked
// equation S = M S Mᵀ + Q(S) (the client noise Q depends on the (x, ξ_c) blocks of S).
// scaffold_exact_lsa_dense: in the Helmert coordinates of Σ_c ξ_c = 0 (dense Schur form of size
// dN, the reference), O((dN)³) per fixed-point iteration. scaffold_exact_lsa_structured: the
// structured solve of scaffold_lsa_structured.cpp (THEORY (L1)), O(d·(dN)²) per GMRES product;
// throws std::domain_error when an eigenbasis of Ā_c or D is too ill-conditioned for it.
// scaffold_exact_lsa: the structured solve from dN ≥ kLsaStructuredMinSize (the dense one below
// it, and when the structured one refuses the eigenbases). All throw InputError naming --gamma
// when M does not contract on Σ_c ξ_c = 0 or the second moment is infinite.
ScaffoldExactMoments scaffold_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting);
ScaffoldExactMoments scaffold_exact_lsa_dense(const LinearSaProblem& problem,
                                              const RunSetting& setting);
ScaffoldExactMoments scaffold_exact_lsa_structured(const LinearSaProblem& problem,
                                                   const RunSetting& setting);
inline constexpr int kLsaStructuredMinSize = 120;

// FedNova (A2) on a linear-sa problem, or FedAvg run with the same unequal steps H_c (the
// setting's client_steps) when `aggregation` is plain: the stationary law (mean: the mean field's
// fixed point D m = r, D = (1/N) Σ_c w_c P_c Ā_c; covariance: Σ = MΣMᵀ + (1/N²) Σ_c w_c² Cov ε_c,
// by lsa_stationary_covariance) and the law of x_t from x0 (THEORY (T1)). fednova_lsa.cpp.
// InputError naming --gamma (no stationary law), --client-steps or --rounds.
ExactMoments unequal_steps_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting,
                                     UnequalStepsAggregation aggregation);
TrajectoryMoments unequal_steps_trajectory_lsa(const LinearSaProblem& problem,
                                               const RunSetting& setting, const Vector& x0,
                                               int rounds, UnequalStepsAggregation aggregation);

// THEORY (T1) for Scaffold (η_g = 1) on a linear-sa problem: E x_t and tr Cov x_t, t = 0 … rounds,
// from (x0, ξ = 0), by the stacked round of scaffold_lsa_stacked.hpp with the clients' noise
// evaluated at each round's moments (scaffold_lsa_trajectory.cpp). InputError naming --rounds
// (range, time limit, overflow) or --server-lr.
TrajectoryMoments scaffold_trajectory_lsa(const LinearSaProblem& problem, const RunSetting& setting,
                                          const Vector& x0, int rounds);
inline constexpr double kLsaEigenbasisRcond = 1e-8;  // of V_c (W): below, the dense solve
inline constexpr double kLsaPsdTolerance = 1e-8;     // LDLᵀ pivots of the diagonal-scaled S

// FedRR (R0) with independent runs: χ = 2x_γ − x_{2γ}, mean 2m_γ − m_{2γ}, covariance
// 4Σ_γ + Σ_{2γ} (THEORY (R2)).
ExactMoments fedrr_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting);

// FedOpt (O0) on a linear-sa problem with the linear optimisers: server sgd with step η_g and
// heavy-ball or Nesterov momentum β (O2), client sgd or fedprox (O3), S of N clients sampled
// without replacement (O5). The state is z = x, or z = (x, u), u = m/γ with momentum (x first),
// as fedopt_exact_state on quadratics. The mean solves 𝐃̄ μ = 𝐫̄ (the mean field's fixed point:
// FedAvg's, or FedProx's with μ_p); the covariance solves Σ = M̄ΣM̄ᵀ + Q(Σ), Q the sampled
// coefficients' spread, the sampled offsets' covariance and the clients' multiplicative noise,
// all through Σ_xx (fedopt_lsa.cpp), by lsa_stationary_covariance in the divided form. Throws
// InputError naming --server for a non-linear optimiser, --participating for S > N, and --gamma
// (and the server's lr) when M̄ does not contract or the second moment is infinite.
ExactMoments fedopt_exact_lsa_state(const LinearSaProblem& problem, const RunSetting& setting);
// x's block of fedopt_exact_lsa_state.
ExactMoments fedopt_exact_lsa(const LinearSaProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
