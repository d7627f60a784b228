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
  Vector mean;  // over chains × rounds
  // Estimated covariance of `mean` (batch means): MCSE² on the diagonal. Its rank is at most
  // batches() − 1: a Hotelling test of all d coordinates needs batches() > d (give a shorter
  // --batch-rounds when d ≥ K ≥ 32).
  Matrix mean_cov;
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

// Batch length of the batch-means MCSE (docs/CLI.md, --batch-rounds). A length b > 0 given by the
// caller is used as is; kAutoBatchRounds (the default) asks for default_batch_rounds.
inline constexpr int kAutoBatchRounds = 0;
// The fewest batch means (pooled over chains) the default leaves: the relative sd of an MCSE
// from N batch means is ≈ 1/√(2(N − 1)), 12.7 % at N = 32 (4.4 % with the 256 batch means of
// K = 256 chains).
inline constexpr int kMinBatchMeans = 32;

// The default batch length: the longest batches that leave at least kMinBatchMeans batch means,
//   a = min(T, ⌈32/K⌉) batches per chain,  b = ⌊T/a⌋ rounds,
// so with K ≥ 32 chains one batch per chain (b = T: the across-chain estimator, whose
// E[MCSE²] is the exact Var(mean) for independent stationary chains whatever their
// autocorrelation), and with fewer chains 32 batch means in all (Schmeiser's fixed number of
// batches: the bias of MCSE² is that of batches of b ≈ T·K/32 rounds, −2ρ/((1−ρ²)b) relative
// for an AR(1) chain, within τ/(2b) for τ = (1+ρ)/(1−ρ)). It does not depend on the data, so it
// cannot be fooled by a slow mode that carries little of the variance but most of the long-run
// variance (a batch length chosen from an estimate of τ can be; measured in
// verify/mcse_calibration_slowtest.cpp). The former default √T (30 rounds for T = 900) gave
// √E[MCSE²]/sd = 0.84 at ρ = 0.9 and 0.39 at ρ = 0.99.
int default_batch_rounds(int rounds, int chains);

class StationaryMomentsAccumulator {
 public:
  // `rounds` is the number of rounds that will be added (after burn-in); `batch_rounds` > 0 is
  // the batch length of the MCSE, kAutoBatchRounds asks for default_batch_rounds(rounds, chains).
  StationaryMomentsAccumulator(int dim, int chains, int rounds,
                               int batch_rounds = kAutoBatchRounds);

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

// Independent estimates of one quantity pooled with EQUAL weights: mean (1/M) Σ_i m_i, se
// (1/M)(Σ_i se_i²)^{1/2}, dof the smallest positive one of theirs (a conservative reference; 0
// when all are 0). Not inverse-variance weights: with se_i estimated from the same draws as m_i
// and a skewed law (squared norms), a low m_i tends to come with a low se_i, so those weights
// bias the pooled mean — measured on the twin gaps of dynamics.gradient-complexity-logistic: a
// −0.35 % shift at 3.5 standard errors, gone with equal weights.
ReplicatedMean pooled_mean(const std::vector<ReplicatedMean>& estimates);

// Vector-valued replications (the columns of a d × G matrix): the mean and the covariance of
// the mean, Σ_g (x_g − x̄)(x_g − x̄)ᵀ / ((G − 1) G); standard errors on its diagonal.
struct ReplicatedMeanVector {
  Vector mean;
  Matrix mean_cov;
  Vector se() const { return mean_cov.diagonal().cwiseSqrt(); }
};
ReplicatedMeanVector replicated_mean(const Matrix& replications);

}  // namespace fedverify::estimators
