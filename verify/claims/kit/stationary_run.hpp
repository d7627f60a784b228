// Measuring a stationary law by simulation, for claims: G independent replications of K/G
// chains each (different seeds), so that any statistic — not only the mean, whose batch-means
// MCSE the accumulator gives — has an error bar from the spread across replications.
#pragma once

#include <cstdint>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/decide.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims {

struct StationaryRunSpec {
  // Algorithm, step and base seed of the chains (replication g runs with a seed derived from
  // sampler.seed and g). Built by kit::sampler_options, which carries the test-only hooks.
  estimators::SamplerOptions sampler;
  int chains = 1024;       // K, split over the replications
  int replications = 20;   // G; G − 1 ≥ d(d+1)/2 for the covariance test
  int rounds = 2000;       // recorded rounds after burn-in, per chain
  double contraction = 0;  // per-round contraction factor ρ of the chain (for the burn-in rule)
  Vector start;            // initial state of every chain (e.g. x* or the predicted mean)
  // Run every chain with its coupled linearised twin y (THEORY (L3), SimulationSpec::
  // linearised_twin) and keep the moments of x − y per replication (StationaryRun::twin).
  bool linearised_twin = false;
  // Residual of the burn-in rule per unit of initial distance (estimators::burn_in_rounds).
  double burn_in_residual = 1e-6;
};

struct StationaryRun {
  estimators::MomentEstimate pooled;                 // all chains: mean with batch-means MCSE
  std::vector<estimators::MomentEstimate> replicas;  // one per replication
  // With StationaryRunSpec::linearised_twin: the moments of x − y, one per replication.
  std::vector<estimators::MomentEstimate> twin;
  int burn_in = 0;
  std::int64_t chain_steps = 0;
  double seconds = 0;
  bool diverged = false;
  std::string divergence;
};

// The replications run on the context's threads and, in a report across ranks, are spread over
// the ranks (kit::spread_tasks): a claim that calls this is a sweep (ClaimRegistration::sweep).
StationaryRun run_stationary(const Context& ctx, const theory::Problem& problem,
                             const StationaryRunSpec& spec);

// Per-round contraction of a chain started near x* (for the burn-in rule): the round map
// linearised at x* contracts like (1 − γ λ_min(𝐇))^H (THEORY (F1) with λ_min(𝐇) for μ).
double contraction_near_optimum(const theory::ExpansionCoefficients& k,
                                const theory::RunSetting& step);

// The replications as i.i.d. vectors: their means (d × G), and the distinct entries of their
// covariances (vech: the upper triangle column by column, d(d+1)/2 × G) — with the mean over
// replications (= the pooled mean, resp. covariance) and the covariance of that mean.
estimators::ReplicatedMeanVector replicated_means(const StationaryRun& run);
estimators::ReplicatedMeanVector replicated_covariances(const StationaryRun& run);
Vector vech(const Matrix& m);

// Hotelling test of "E[mean] = predicted" from the replication means (i.i.d. across
// replications; needs replications − 1 ≥ d). Unlike the batch-means MCSE it stays calibrated
// when a chain's autocorrelation time is long against the batch length.
estimators::Decision mean_test(const StationaryRun& run, const Vector& predicted, double alpha);

// Hotelling test of "E[cov] = predicted" on the d(d+1)/2 distinct entries, from the replication
// covariances (i.i.d. across replications): the covariance's error bar is their spread.
estimators::Decision covariance_test(const StationaryRun& run, const Matrix& predicted,
                                     double alpha);

// A row comparing a stationary run with exact moments (Lyapunov or random-coefficient solution):
// Hotelling tests of the mean and of the covariance entries across the replications at `alpha`
// each (passed: both pass), the measured text, the equivalence within `margin` (relative) of √tr Σ
// (mean) and of max |Σ_ij| (covariance), and the data mean_p_value, cov_p_value,
// cov_relative_difference, alpha_per_test, chain_steps. The caller sets setting and predicted,
// and adds its own data and gates.
Row exact_moments_row(const StationaryRun& run, const Vector& mean, const Matrix& cov,
                      double margin, double alpha);

// The mean half of exact_moments_row (Hotelling test and TOST of the mean; data mean_p_value,
// alpha_per_test, chain_steps), for chains whose covariance entries a budget cannot resolve.
Row exact_mean_row(const StationaryRun& run, const Vector& mean, const Matrix& cov, double margin,
                   double alpha);

}  // namespace fedverify::claims
