// The exact finite-time law of the global model x_t, t = 0 … T, from a deterministic start
// (THEORY (T1)): `predict --rounds T --x0 X` (mse_exact, mean_exact_t) and the finite-time claims.
//
// On a quadratic problem every chain algorithm with an affine round map (exact.hpp) is a linear
// Gaussian chain on its state z (x first; Scaffold's variates, FedOpt's momentum after it), so
//     E z_{t+1} = M E z_t + γ r,    Cov z_{t+1} = M Cov(z_t) Mᵀ + γ G,
// from z_0 = (x_0, 0, …, 0): the auxiliary states start at 0, as the samplers start them. On a
// linear-sa problem FedAvg's round is affine with random coefficients independent of the state, so
// its two moments close round by round as in THEORY (L1). E‖x_t − x*‖² = ‖E x_t − x*‖² + tr Cov
// x_t.
#pragma once

#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/trajectory_moments.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

// The checks every exact curve shares: 0 ≤ rounds ≤ limits::kMaxTrajectoryRounds (InputError
// naming --rounds), and the moments of round t finite (InputError naming --rounds: the chain
// diverges from this start).
void require_trajectory_rounds(int rounds);
void require_finite_trajectory(const TrajectoryMoments& moments, int t);

// THEORY (T1) for the affine Gaussian chain of `map` from z_0 = (x0, 0, …, 0), x the leading
// x0.size() entries of z. Before any work the cost (T products of s×s matrices, s the state's size)
// is checked against limits::closed_form_seconds() (InputError naming --rounds).
TrajectoryMoments affine_trajectory(const AffineRoundMap& map, const Vector& x0, int rounds);

// THEORY (T1) for FedAvg (SGD at H = 1) on a linear-sa problem: the round's moment map of (L1)
// from x_0 = x0 (lsa_client_round per client, T times; InputError naming --rounds beyond the
// time limit).
TrajectoryMoments fedavg_trajectory_lsa(const LinearSaProblem& problem, const RunSetting& setting,
                                        const Vector& x0, int rounds);

// E‖x_t − x*‖² = ‖E x_t − x*‖² + tr Cov x_t for every t.
std::vector<double> mean_square_error(const TrajectoryMoments& moments, const Vector& x_star);

// FedRR's χ_t = 2x_t(γ) − x_t(2γ) from two independent runs (THEORY (R2) at every t): mean
// 2m_γ − m_2γ, tr Cov 4 tr Σ_γ + tr Σ_2γ.
TrajectoryMoments richardson_trajectory(const TrajectoryMoments& at_gamma,
                                        const TrajectoryMoments& at_2gamma);

}  // namespace fedverify::theory
