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
};
Trajectory simulate_trajectory(const Context& ctx, const theory::Problem& q, theory::Algorithm a,
                               const theory::RunSetting& step, const Vector& x0,
                               const Vector& x_star, int chains, int rounds, std::uint64_t seed,
                               int threads, int tail_from = -1);

// The slowest decay rate of the mean near x*, per unit step: λ_min of the symmetric part of 𝐇
// (THEORY (F1) with λ_min(𝐇) for μ). The dynamics claims size their horizons with it.
double slowest_mean_rate(const Matrix& hessian);

}  // namespace fedverify::claims::dynamics
