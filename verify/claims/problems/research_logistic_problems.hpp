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

// (bugprone-exception-escape: nlohmann::json's moves are not declared noexcept, as in claim.hpp.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ResearchLogistic {
  // "lr-breast-cancer": d = 31, N = 10, Dirichlet(0.5), λ = 0.05, B = 1. Its generator record
  // (results.json) names the table and the split.
  NamedProblem breast_cancer;
  // "lr-breast-cancer-x2": the same ten clients each twice (N = 20; every_client_twice), so
  // b_s(2N) = b_s(N)/2 with f, x* and b_h unchanged.
  NamedProblem breast_cancer_doubled;
};

// Read and partitioned on first use; throws InputError naming the table when python3-sklearn's
// breast_cancer.csv is missing.
const ResearchLogistic& research_logistic_problems();

}  // namespace fedverify::claims
