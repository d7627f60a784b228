// The small random problems of the personalised-FL checks (THEORY §7): heterogeneous quadratics, on
// which the mean-square dynamics of L2GD is exact (theory::L2gdMeanSquare), and a logistic
// regression with client-specific feature shifts, on which L2GD is simulated. Shared by the claims
// of verify/claims/personalised/ and the tests of verify/personalised_theorems_test.cpp and
// verify/personalised_json_test.cpp.
#pragma once

#include <cstdint>

#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::claims {

// n clients, f_i(x) = ½ (x − b_i)ᵀ A_i (x − b_i) in d dimensions; the spectrum of A_i is spread
// evenly over [μ, L] (so μ and L are the problem's strong convexity and smoothness) in a random
// orthonormal basis, b_i ~ N(0, 4I). No gradient noise: L2GD as in THEORY (P2) uses full local
// gradients. All draws from Stream(seed, Purpose::test).
theory::QuadraticProblem make_quadratic(int n, int d, double mu, double l, std::uint64_t seed);

// Logistic regression (THEORY §6), n clients with m samples each in d dimensions, ridge l2,
// minibatch 1. Labels y = sign(aᵀw + N(0, 1)) for one w ~ N(0, I); client i's features are N(s_i,
// I) with its own shift s_i ~ N(0, I), so the local optima differ (heterogeneity). All draws from
// Stream(seed, Purpose::test).
theory::LogisticProblem make_logistic(int n, int m, int d, double l2, std::uint64_t seed);

}  // namespace fedverify::claims
