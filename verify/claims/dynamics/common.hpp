// Shared by the dynamics claims that advance chain ensembles round by round.
#pragma once

#include <cstdint>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::dynamics {

// A stationary sample of FedAvg: `chains` chains started at x_start and advanced `rounds`
// rounds (the burn-in is the caller's), the d × chains final state.
Matrix stationary_sample(const Context& ctx, const theory::Problem& p,
                         const theory::RunSetting& step, const Vector& x_start, int chains,
                         int rounds, std::uint64_t seed, int threads);

// Mean over chains of ‖x_t − x*‖² and of ‖x_t − x*‖ along rounds 0..rounds, with the standard
// error of the former across chains. With tail_from ≥ 0, also the time average of ‖x_t − x*‖²
// over rounds tail_from..rounds: each chain's average, then their mean and its standard error
// across the (independent) chains — far sharper than one round's mean when the rounds of the
// window decorrelate.
struct Trajectory {
  std::vector<double> mse, mse_se, mean_norm;
  std::vector<double> bias_norm;  // ‖mean over chains of x_t − x*‖: the noise averages out
  double tail_mean = 0, tail_se = 0;
  // With the linearised twin (simulate_trajectory_with_twin): the control variate's assumption,
  // checked in the same run — each chain's time average over rounds 1..T of the relative gap
  // (‖y_t − x*‖² − twin_mse[t])/twin_mse[t] between its twin and the twin's exact law, i.i.d.
  // across chains with mean 0 when the twin rows follow that law: their mean and its standard
  // error.
  double twin_gap = 0, twin_gap_se = 0;
};
Trajectory simulate_trajectory(const Context& ctx, const theory::Problem& q, theory::Algorithm a,
                               const theory::RunSetting& step, const Vector& x0,
                               const Vector& x_star, int chains, int rounds, std::uint64_t seed,
                               int threads, int tail_from = -1);

// E‖x_t − x*‖² along rounds 0..rounds with the linearised twin as control variate (THEORY (L3)):
// every chain runs beside its coupled twin y (SamplerOptions::linearised_twin), and the estimate
// is twin_mse[t] — the exact E‖y_t − x*‖² of the twin's own law (theory::per_sample_linearisation
// and its exact trajectory) — plus the mean over chains of ‖x_t − x*‖² − ‖y_t − x*‖², with that
// difference's standard error across chains (mse and mse_se), and twin_gap, twin_gap_se (the
// other fields are left empty).
// Unbiased whatever the coupling; sharper the closer x stays to y (near x*, at small γ).
Trajectory simulate_trajectory_with_twin(const Context& ctx, const theory::Problem& p,
                                         theory::Algorithm a, const theory::RunSetting& step,
                                         const Vector& x0, const Vector& x_star,
                                         const std::vector<double>& twin_mse, int chains,
                                         std::uint64_t seed, int threads);

// The slowest decay rate of the mean near x*, per unit step: λ_min of the symmetric part of 𝐇
// (THEORY (F1) with λ_min(𝐇) for μ). The dynamics claims size their horizons with it.
double slowest_mean_rate(const Matrix& hessian);

}  // namespace fedverify::claims::dynamics
