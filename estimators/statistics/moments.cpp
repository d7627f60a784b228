// Stationary moments over chains × rounds, streamed one d×K round at a time.
//
// Estimators (all memory independent of the number of rounds):
//
//  * mean, cov: pooled over every (chain, round) sample. Each round's ensemble is reduced to
//    its own mean and centred scatter matrix, which are merged into the running totals by the
//    pairwise update of Chan, Golub & LeVeque (1979):
//        δ = m_r − m,  m ← m + δ K/(n+K),  M2 ← M2 + S_r + δδᵀ nK/(n+K).
//    No raw sums of squares are formed, so the 10⁹-sample regime does not lose the covariance
//    to cancellation. cov = M2/(n − 1).
//
//  * mean_cov (MCSE²): batch means. Each chain is cut into a = ⌊T/b⌋ consecutive batches of
//    b rounds (the caller's, or default_batch_rounds: ≥ 32 batch means, one per chain when
//    K ≥ 32); the K·a batch means (all chains pooled) estimate the asymptotic covariance
//    Σ_∞ = lim n Var(x̄) ≈ b · S_batch, where S_batch is the sample covariance of the batch
//    means about their own mean (divisor K·a − 1). Then mean_cov = Σ_∞ / (K·T).
//    Rounds not divisible by b: the last T mod b rounds enter mean and cov (and the n = K·T of
//    mean_cov) but no batch; Σ_∞ is a per-sample quantity, so dropping < b rounds from the
//    batches only costs a little precision, not bias.
//
//  * ess_i = cov_ii / mean_cov_ii (effective number of independent samples).
//
//  * split-R̂ (Gelman et al., BDA3 §11.4): each chain's first and last ⌊T/2⌋ rounds form two
//    half-chains (the middle round is skipped when T is odd); with m = 2K half-chains of
//    length n, W = mean of within-half variances, B/n = variance of the half-chain means,
//    var⁺ = (n−1)/n W + B/n, R̂ = √(var⁺/W). Per-half-chain Welford accumulators.
//
//  * cov_mcse: batch means of the products P = vech((x − c)(x − c)ᵀ) about a reference c (the
//    first round's ensemble mean) together with the batch means of x. The covariance estimate
//    is mean(P) − δδᵀ with δ = x̄ − c; to first order its fluctuation is that of the batch mean
//    of φ_ij = P_ij − δ_j (x − c)_i − δ_i (x − c)_j (delta method), whose variance is read off
//    the joint covariance of the batch means of (x, P).
#include "estimators/statistics/moments.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "estimators/statistics/ordered_sums.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

namespace {

// Running mean and scatter matrix of vectors, merged block-wise (Chan et al. pairwise update).
struct PooledMoments {
  std::int64_t count = 0;
  Vector mean;
  Matrix scatter;  // Σ (x − mean)(x − mean)ᵀ, lower triangle

  explicit PooledMoments(int dim) : mean(Vector::Zero(dim)), scatter(Matrix::Zero(dim, dim)) {}

  // Merge the columns of `block` (dim × k). Every sum in a fixed order (ordered_sums.hpp), so
  // the result does not depend on the vector width the build targets.
  void merge(const Matrix& block) {
    const std::int64_t k = block.cols();
    if (k == 0) return;
    Vector block_mean;
    ordered_row_sums(block, block_mean);
    block_mean /= static_cast<double>(k);
    const Matrix centred = block.colwise() - block_mean;
    const Vector delta = block_mean - mean;
    const double n = static_cast<double>(count);
    const double total = n + static_cast<double>(k);
    const double share = static_cast<double>(k) / total;
    for (Eigen::Index i = 0; i < mean.size(); ++i) mean(i) += delta(i) * share;  // (see split_rhat)
    // Lower triangle only. (Eigen's SYRK, used before, accumulates in register blocks shaped by
    // the vector width; it also split each small per-round product over OpenMP threads, ~100×
    // slower under a loaded machine.)
    add_ordered_lower_products(centred, scatter);
    add_ordered_lower_outer(delta, n * static_cast<double>(k) / total, scatter);
    count += k;
  }

  Matrix covariance() const {
    if (count < 2) {
      return Matrix::Constant(mean.size(), mean.size(), std::numeric_limits<double>::quiet_NaN());
    }
    const Matrix full = scatter.selfadjointView<Eigen::Lower>();
    return full / static_cast<double>(count - 1);
  }
};

// Element-wise Welford accumulator for K chains (one column each) of a d-vector.
struct PerChainWelford {
  std::int64_t count = 0;
  Matrix mean;  // d × K
  Matrix m2;    // d × K, Σ (x − mean)² per entry

  PerChainWelford(int dim, int chains)
      : mean(Matrix::Zero(dim, chains)), m2(Matrix::Zero(dim, chains)) {}

  // Chain k's sample x (column k of a round) as its count-th (count already incremented).
  void add_column(int k, const double* x) {
    const auto n = static_cast<double>(count);
    double* m = mean.col(k).data();
    double* s = m2.col(k).data();
    for (Eigen::Index i = 0; i < mean.rows(); ++i) {
      const double delta = x[i] - m[i];
      m[i] += delta / n;
      s[i] += delta * (x[i] - m[i]);
    }
  }
};

}  // namespace

int default_batch_rounds(int rounds, int chains) {
  if (rounds < 1) throw InputError("rounds: must be ≥ 1, got " + std::to_string(rounds));
  if (chains < 1) throw InputError("chains: must be ≥ 1, got " + std::to_string(chains));
  const int per_chain = std::min(rounds, (kMinBatchMeans + chains - 1) / chains);  // ⌈32/K⌉
  return rounds / per_chain;
}

struct StationaryMomentsAccumulator::Impl {
  int dim;
  int chains;
  int rounds;             // declared T
  int batch_rounds;       // b
  int batches_per_chain;  // a = ⌊T/b⌋
  int half_rounds;        // ⌊T/2⌋
  bool with_cov_mcse;
  int num_products;  // d(d+1)/2 when with_cov_mcse

  int added = 0;
  PooledMoments pooled;
  Matrix batch_sum;  // (d + p) × K: running sums of (x, vech((x − c)(x − c)ᵀ)) in the batch
  PooledMoments batch_means;
  Vector reference;  // c
  PerChainWelford first_half;
  PerChainWelford second_half;

  Impl(int d, int k, int t, int b)
      : dim(d),
        chains(k),
        rounds(t),
        batch_rounds(b),
        batches_per_chain(t / b),
        half_rounds(t / 2),
        with_cov_mcse(d <= max_dim_for_cov_mcse),
        num_products(with_cov_mcse ? d * (d + 1) / 2 : 0),
        pooled(d),
        batch_sum(Matrix::Zero(d + num_products, k)),
        batch_means(d + num_products),
        first_half(d, k),
        second_half(d, k) {}

  // Rows dim.. of chain k's batch accumulator: vech((x − c)(x − c)ᵀ), column-major lower
  // triangle, contiguous in column k (a row-wise pass over all chains strides by d + p doubles
  // per chain and cost ~15 % of a logistic simulate run).
  void add_products(int k, const double* x, double* centred) {
    for (int i = 0; i < dim; ++i) centred[i] = x[i] - reference(i);
    double* sum = batch_sum.col(k).data() + dim;
    for (int j = 0; j < dim; ++j) {
      for (int i = j; i < dim; ++i) *sum++ += centred[i] * centred[j];
    }
  }

  void add(const Matrix& ensemble) {
    if (ensemble.rows() != dim || ensemble.cols() != chains) {
      throw InputError("ensemble: expected a " + std::to_string(dim) + "×" +
                       std::to_string(chains) + " matrix (dim × chains), got " +
                       std::to_string(ensemble.rows()) + "×" + std::to_string(ensemble.cols()));
    }
    if (added >= rounds) {
      throw std::logic_error("StationaryMomentsAccumulator: more rounds added than declared (" +
                             std::to_string(rounds) + ")");
    }
    if (added == 0) {
      ordered_row_sums(ensemble, reference);
      reference /= static_cast<double>(chains);
    }
    const int t = added++;

    pooled.merge(ensemble);

    // The per-chain statistics, chain by chain (each chain's column is contiguous). Not split
    // over threads: on the shared 2-core machine one OpenMP region per recorded round cost more
    // in barrier waits than it saved (logistic d = 10, K = 4096, 2 threads: 1.36–1.68 s of user
    // time against 1.05–1.12 s serially, bench/README.md run 11).
    const bool in_batch = t < batches_per_chain * batch_rounds;
    const bool first = t < half_rounds;
    const bool second = t >= rounds - half_rounds;
    if (first) ++first_half.count;
    if (second) ++second_half.count;
    Vector centred(dim);
    for (int k = 0; k < chains; ++k) {
      const double* x = ensemble.col(k).data();
      if (in_batch) {
        double* sum = batch_sum.col(k).data();
        for (int i = 0; i < dim; ++i) sum[i] += x[i];
        if (with_cov_mcse) add_products(k, x, centred.data());
      }
      if (first) first_half.add_column(k, x);
      if (second) second_half.add_column(k, x);
    }
    if (in_batch && (t + 1) % batch_rounds == 0) {
      batch_means.merge(batch_sum / static_cast<double>(batch_rounds));
      batch_sum.setZero();
    }
  }

  // Split-R̂ per coordinate from the 2K half-chains (BDA3 §11.4).
  Vector split_rhat() const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::int64_t n = std::min(first_half.count, second_half.count);
    if (n < 2 || first_half.count != second_half.count) return Vector::Constant(dim, nan);
    const int m = 2 * chains;
    Matrix means(dim, m);
    means << first_half.mean, second_half.mean;
    Matrix within(dim, m);
    within << first_half.m2, second_half.m2;
    within /= static_cast<double>(n - 1);
    Vector w, grand;
    ordered_row_sums(within, w);
    w /= static_cast<double>(m);
    ordered_row_sums(means, grand);
    grand /= static_cast<double>(m);
    const Matrix spread = (means.colwise() - grand).cwiseAbs2();
    Vector b_over_n;
    ordered_row_sums(spread, b_over_n);
    b_over_n /= m - 1.0;
    const double nd = static_cast<double>(n);
    // A plain loop, not an Eigen expression: Eigen's a·w + b is a packet multiply and add that the
    // compiler fuses into one FMA with AVX2 (generic vector arithmetic) but not with AVX-512 (its
    // masked builtins), so R̂'s last bit depended on the build machine (same_bits_across_cpus_test).
    Vector rhat(dim);
    for (int i = 0; i < dim; ++i) {
      const double var_plus = ((nd - 1.0) / nd) * w(i) + b_over_n(i);
      rhat(i) = std::sqrt(var_plus / w(i));
    }
    // A coordinate that never moves (no noise reaches it, or it is pinned): within- and
    // between-chain variances both 0, and the chains agree exactly: R̂ = 1 (0/0 otherwise).
    for (int i = 0; i < dim; ++i) {
      if (w(i) == 0.0 && b_over_n(i) == 0.0) rhat(i) = 1.0;
    }
    return rhat;
  }

  MomentEstimate result() const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    MomentEstimate est;
    est.chains = chains;
    est.rounds = added;
    est.samples = pooled.count;
    est.batch_rounds = batch_rounds;
    est.batches_per_chain = std::min(batches_per_chain, added / batch_rounds);
    est.mean = pooled.count > 0 ? pooled.mean : Vector::Constant(dim, nan);
    est.cov = pooled.covariance();

    // Σ_∞ ≈ b · Cov(batch means); mean_cov = Σ_∞ / (K·T).
    const double samples = static_cast<double>(pooled.count);
    const double b = static_cast<double>(batch_rounds);
    const Matrix batch_cov = batch_means.covariance();  // NaN when fewer than 2 batch means
    est.mean_cov = (b / samples) * batch_cov.topLeftCorner(dim, dim);
    est.mean_mcse = est.mean_cov.diagonal().cwiseSqrt();
    est.ess = est.cov.diagonal().cwiseQuotient(est.mean_cov.diagonal());
    for (int i = 0; i < dim; ++i) {  // a constant coordinate: every sample is exact (0/0 otherwise)
      if (est.cov(i, i) == 0.0 && est.mean_cov(i, i) == 0.0) est.ess(i) = samples;
    }
    est.rhat = split_rhat();

    if (with_cov_mcse) {
      // Delta method: φ_ij = P_ij − δ_j y_i − δ_i y_j with y = x − c, δ = x̄ − c. Its batch
      // mean is a_ijᵀ z for the batch-mean vector z = (x̄_batch, P̄_batch); the y-part of z is
      // shifted by c relative to x̄_batch, which does not change its covariance.
      const Vector delta = est.mean - reference;
      est.cov_mcse.resize(dim, dim);
      int row = dim;
      for (int j = 0; j < dim; ++j) {
        for (int i = j; i < dim; ++i, ++row) {
          // a_ij has at most three nonzero entries (rows `row`, i and j; i and j merge on the
          // diagonal): the quadratic form a_ijᵀ B a_ij summed over them, in this order.
          const int at[3] = {row, i, j};
          const double coeff[3] = {1.0, i == j ? -2.0 * delta(i) : -delta(j),
                                   i == j ? 0.0 : -delta(i)};
          const int terms = i == j ? 2 : 3;
          double var_batch = 0.0;
          for (int p = 0; p < terms; ++p) {
            for (int q = 0; q < terms; ++q)
              var_batch += coeff[p] * coeff[q] * batch_cov(at[p], at[q]);
          }
          est.cov_mcse(i, j) = est.cov_mcse(j, i) = std::sqrt(b * var_batch / samples);
        }
      }
    }
    return est;
  }
};

StationaryMomentsAccumulator::StationaryMomentsAccumulator(int dim, int chains, int rounds,
                                                           int batch_rounds) {
  if (dim < 1) throw InputError("dim: must be ≥ 1, got " + std::to_string(dim));
  if (chains < 1) throw InputError("chains: must be ≥ 1, got " + std::to_string(chains));
  if (rounds < 1) throw InputError("rounds: must be ≥ 1, got " + std::to_string(rounds));
  if (batch_rounds < 0 || batch_rounds > rounds) {
    throw InputError("batch_rounds: must be in [0, rounds = " + std::to_string(rounds) + "], got " +
                     std::to_string(batch_rounds));
  }
  const int b = batch_rounds > 0 ? batch_rounds : default_batch_rounds(rounds, chains);
  impl_ = std::make_shared<Impl>(dim, chains, rounds, b);
}

void StationaryMomentsAccumulator::add(const Matrix& ensemble) { impl_->add(ensemble); }

MomentEstimate StationaryMomentsAccumulator::result() const { return impl_->result(); }

ReplicatedMean replicated_mean(const std::vector<double>& replications) {
  if (replications.size() < 2) {
    throw InputError("replications: a standard error needs at least 2, got " +
                     std::to_string(replications.size()));
  }
  const auto g = static_cast<double>(replications.size());
  ReplicatedMean r;
  for (double x : replications) r.mean += x;
  r.mean /= g;
  double ss = 0;  // two-pass: no cancellation of Σx² − G x̄²
  for (double x : replications) ss += (x - r.mean) * (x - r.mean);
  r.se = std::sqrt(ss / (g - 1.0) / g);
  r.dof = g - 1.0;
  return r;
}

ReplicatedMeanVector replicated_mean(const Matrix& replications) {
  if (replications.cols() < 2) {
    throw InputError("replications: a standard error needs at least 2 columns, got " +
                     std::to_string(replications.cols()));
  }
  const auto g = static_cast<double>(replications.cols());
  ReplicatedMeanVector r;
  ordered_row_sums(replications, r.mean);
  r.mean /= g;
  const Matrix centred = replications.colwise() - r.mean;
  Matrix scatter = Matrix::Zero(replications.rows(), replications.rows());
  add_ordered_lower_products(centred, scatter);
  r.mean_cov = scatter.selfadjointView<Eigen::Lower>();
  r.mean_cov /= (g - 1.0) * g;
  return r;
}

ReplicatedMean pooled_mean(const std::vector<ReplicatedMean>& estimates) {
  if (estimates.empty()) return {};
  double sum = 0, variance = 0, dof = std::numeric_limits<double>::infinity();
  for (const ReplicatedMean& e : estimates) {
    sum += e.mean;
    variance += e.se * e.se;
    if (e.dof > 0) dof = std::min(dof, e.dof);  // dof 0: a normal reference, the largest
  }
  const double m = static_cast<double>(estimates.size());
  return {sum / m, std::sqrt(variance) / m, std::isinf(dof) ? 0.0 : dof};
}

}  // namespace fedverify::estimators
