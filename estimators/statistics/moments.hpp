// Stationary moments from an ensemble of K independent chains observed over rounds, with
// Monte Carlo standard errors (batch means), effective sample size and split-R̂.
//
// CONTRACT (shared by the samplers in chains/simulate and by the statistics): samplers feed
// one d×K matrix per recorded round (column = chain) to a StationaryMomentsAccumulator; memory
// does not grow with the number of rounds.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

struct MomentEstimate {
  Vector mean;               // over chains × rounds
  Matrix mean_cov;           // estimated covariance of `mean` (batch means): MCSE² on the diagonal
  Vector mean_mcse;          // sqrt(diag(mean_cov))
  Matrix cov;                // stationary covariance (about `mean`)
  Vector ess;                // effective sample size per coordinate
  Vector rhat;               // split-R̂ per coordinate (chains split in halves over rounds)
  std::int64_t samples = 0;  // chains × rounds accumulated
  int chains = 0;
  int rounds = 0;
  int batches_per_chain = 0;
  int batch_rounds = 0;  // batch length b (rounds); the batch means of all chains are pooled
  // MCSE of every entry of `cov` (batch means of the centred products, delta method for the
  // estimated mean); empty when dim > StationaryMomentsAccumulator::max_dim_for_cov_mcse.
  Matrix cov_mcse;

  // Number of batch means behind `mean_cov` (chains × batches_per_chain); the degrees of
  // freedom of the Hotelling test are derived from it.
  std::int64_t batches() const { return static_cast<std::int64_t>(chains) * batches_per_chain; }
};

// The batch length used when none is given: ≈ √rounds, at least 1.
int default_batch_rounds(int rounds);

class StationaryMomentsAccumulator {
 public:
  // `rounds` is the number of rounds that will be added (after burn-in); the batch length is
  // chosen ≈ √rounds (at least 1) unless `batch_rounds` > 0 is given.
  StationaryMomentsAccumulator(int dim, int chains, int rounds, int batch_rounds = 0);

  // Above this dimension `cov_mcse` is not computed: it needs the joint covariance of the batch
  // means of d + d(d+1)/2 quantities, O(d⁴) memory.
  static constexpr int max_dim_for_cov_mcse = 24;

  // One round of the ensemble (dim × chains).
  void add(const Matrix& ensemble);

  MomentEstimate result() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// Replicated runs: G independent replications x_1..x_G of an estimate (whole independent runs,
// different seeds), their mean and the standard error of that mean from their spread:
//   x̄ = (1/G) Σ_g x_g,   SE² = Σ_g (x_g − x̄)² / ((G − 1) G).
// Exact for i.i.d. replications whatever the autocorrelation inside each one, which is why the
// claims prefer it to the batch-means MCSE when a chain's autocorrelation time is long. G ≥ 2.
struct ReplicatedMean {
  double mean = 0;
  double se = 0;  // standard error of `mean`
  // Degrees of freedom of `se`: G − 1 when it is estimated from G replications (the tests of
  // decide.hpp then refer their statistic to Student's t with that many), 0 when it is known or
  // from a large sample (normal reference).
  double dof = 0;
};
ReplicatedMean replicated_mean(const std::vector<double>& replications);

// Vector-valued replications (the columns of a d × G matrix): the mean and the covariance of
// the mean, Σ_g (x_g − x̄)(x_g − x̄)ᵀ / ((G − 1) G); standard errors on its diagonal.
struct ReplicatedMeanVector {
  Vector mean;
  Matrix mean_cov;
  Vector se() const { return mean_cov.diagonal().cwiseSqrt(); }
};
ReplicatedMeanVector replicated_mean(const Matrix& replications);

}  // namespace fedverify::estimators
