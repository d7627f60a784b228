// The research-sized logistic-regression problem of the stochasticity-bias claims (THEORY §6,
// (L3)): logistic regression on scikit-learn's breast-cancer table (569 samples, 30 features,
// standardised, plus an intercept: d = 31), split over N = 10 clients by a Dirichlet(0.5) label
// partition, λ = 0.05, minibatch B = 1. The table ships with Debian's python3-sklearn
// (theory::sklearn_table_path); the problem is a pure function of the table and a fixed seed.
//
// λ = 0.05 puts the condition number L/μ at ≈ 110 with L the per-sample curvature bound
// (≈ 5.44) and λ_max(𝐇)/λ_min(𝐇) ≈ 8.6 at x*; ‖b_s‖ ≈ 0.048 and ‖x*‖ ≈ 1.4.
#pragma once

#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims {

struct ResearchLogistic {
  NamedProblem breast_cancer;  // "lr-breast-cancer": d = 31, N = 10, Dirichlet(0.5), λ = 0.05
  // The same ten clients each twice (N = 20): f, x*, 𝐇, C̄, ∇³f and b_h are unchanged, so the
  // stochasticity bias b_s ∝ 1/N halves (THEORY (F3)).
  NamedProblem breast_cancer_doubled;
  // Every client holds the whole standardised table (N = 10 identical clients): ∇f_c(x*) = 0, so
  // the heterogeneity bias b_h = 0 and FedAvg's first-order bias is γ b_s at every H.
  NamedProblem breast_cancer_homogeneous;
  // lr-breast-cancer with minibatch B = 64: C̄ and b_s shrink 64-fold, (H−1) b_h stays.
  NamedProblem breast_cancer_large_batch;
  int large_batch_size = 0;
  double dirichlet_alpha = 0;
  std::uint64_t partition_seed = 0;
};

// Read and partitioned on first use; throws InputError naming the table when python3-sklearn's
// breast_cancer.csv is missing.
const ResearchLogistic& research_logistic_problems();

}  // namespace fedverify::claims
