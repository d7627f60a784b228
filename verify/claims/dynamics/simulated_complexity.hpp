// Gradient complexity to ε on SIMULATED curves (issue 29 item 3, THEORY (T2)): the search of
// complexity.hpp where no exact moment recursion exists (logistic regression), with a confidence
// band on every count.
//
// For each γ of the grid (ratio 2^{1/8} below γ_max, as complexity.hpp) K chains run from x₀ and
// E_t = E‖x_t − x*‖² is estimated at every round by the mean over the chains, with its standard
// error s_t. The band E_t ∈ [Ê_t − z·s_t, Ê_t + z·s_t] is required at every round of every curve
// at once: z is Bonferroni's over `band_tests_bound` (a count fixed before any draw), so all bands
// hold together with probability ≥ 1 − α. From the band's two edges and the estimate itself, T(γ,
// ε) — one more than the last round with E_t > ε² — has three readings T⁻ ≤ T̂ ≤ T⁺ (T⁻ from the
// lower edge, T⁺ from the upper), and so does the count H·T; a curve whose edge is above ε² at its
// last round has no T for that edge. With every band holding, T⁻(γ) ≤ T(γ) ≤ T⁺(γ) for each γ.
//
// The least count over the grid then lies in [min_γ H·T⁻, min_γ H·T⁺]. The search stops, for
// every ε, once some γ has a finite T⁺ and the current γ's H·T⁻ is at least the best H·T⁺ so far:
// when γT(γ, ε) is non-decreasing in γ (complexity.hpp, and THEORY (T2)'s transient ∝ 1/γ), no
// smaller γ can then have a count below it, and the lower end is valid whatever the stop (every
// unsearched γ′ < γ has T(γ′) ≥ T(γ) ≥ T⁻(γ)). Horizon: each curve runs ⌈8/(Hγλ_min)⌉ rounds (the
// slowest mode of the mean decays by e^{−8}); beyond it E_t is taken to stay below ε² where it is
// at the last round (the stationary level is reached).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/dynamics/complexity.hpp"

namespace fedverify::claims::dynamics {

// The count of one ε: the band [lower, upper] and the estimate `point` (from Ê_t), each the least
// over the searched γ; 0 where no γ reached ε² (upper: none certified). `gamma` and `rounds` are
// those of the upper end.
struct CountBand {
  double lower = 0, point = 0, upper = 0;
  double gamma = 0;
  int rounds = 0;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CountBand, lower, point, upper, gamma, rounds)

struct SimulatedComplexity {
  std::vector<CountBand> per_epsilon;  // in the order of epsilon2
  int curves = 0;                      // simulated curves (γ values)
  std::int64_t band_tests = 0;         // rounds compared with their band, ≤ the bound
  bool exhausted = false;              // the grid's end was reached before the stop rule
  // With the control variate, which is unbiased only if the twin rows follow the twin's exact law:
  // the curves' relative gaps (Trajectory::twin_gap) pooled (estimators::pooled_mean),
  // and the pooled standard error (0 and 0 without the control variate).
  double twin_gap = 0, twin_gap_se = 0;
};

// A search crosses processes as a task value (kit::spread_tasks).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SimulatedComplexity, per_epsilon, curves,
                                                band_tests, exhausted, twin_gap, twin_gap_se)

// The search's fixed sizes: the grid points it may visit (γ_max·2^{−i/8}, i < grid_points) and
// the chains per curve.
struct SimulatedSearch {
  int grid_points = 48;  // γ down to γ_max/64
  int chains = 1024;
  // Estimate every curve with the linearised twin as control variate (common.hpp,
  // simulate_trajectory_with_twin; logistic problems): the twin's exact curve from
  // theory::per_sample_linearisation, plus the chains' mean of ‖x_t − x*‖² − ‖y_t − x*‖².
  bool control_variate = false;
};

// Rounds of the curve at step γ: ⌈8/(Hγλ_min)⌉ (λ_min of the symmetric part of 𝐇 at x*).
int simulated_horizon(double gamma, int local_steps, double lambda_min);

// An upper bound on the band tests of one search, fixed before any draw: Σ_{i < grid_points}
// (horizon(γ_i) + 1). The claim's z is Bonferroni's over the sum of these.
std::int64_t band_tests_bound(const theory::Problem& p, ComplexityMethod method,
                              const ComplexitySetting& setting, const SimulatedSearch& search);

// The search for one method on one problem (FedAvg, Scaffold, minibatch SGD; FedRR throws
// std::invalid_argument: its two runs per curve are left to the exact search). `seed_key` names
// the search in the row seeds (kit::row_seed(ctx, claim_id, seed_key + γ index)).
SimulatedComplexity simulated_gradient_complexity(const Context& ctx, const std::string& claim_id,
                                                  const std::string& seed_key,
                                                  const theory::Problem& p, ComplexityMethod method,
                                                  const ComplexitySetting& setting,
                                                  const SimulatedSearch& search, const Vector& x0,
                                                  const std::vector<double>& epsilon2, double z);

}  // namespace fedverify::claims::dynamics
