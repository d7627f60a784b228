// Small quadratic settings on which the closed forms of theory/ are compared with independent
// computations (brute-force iteration, direct calls): tests only.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "theory/base/testing/round_off.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::verify {

// Both sides are accurate to ~ n·ε/(1 − ρ) ≤ 1e-11 in the settings below (1 − ρ ≥ 5e-3, state
// size n ≤ 16); 1e-9 leaves a 100× margin for the non-normality of Scaffold's stacked map. A
// formula error (a wrong power of B_c, a missing 1/N, a wrong sign) changes the result by ≥ γ.
constexpr double kBruteForceTolerance = 1e-9;

struct ChainCase {
  std::uint64_t seed;
  int dim;
  int clients;
  double gamma;
  int local_steps;
};

inline const std::vector<ChainCase> kChainCases = {{41, 2, 3, 0.05, 1},
                                                   {42, 3, 3, 0.1, 2},
                                                   {43, 2, 4, 0.05, 5},
                                                   {44, 3, 2, 0.2, 3},
                                                   {45, 1, 3, 0.1, 4}};

inline theory::QuadraticProblem chain_problem(const ChainCase& k) {
  auto o = small_options(k.seed);
  o.dim = k.dim;
  o.clients = k.clients;
  return theory::generate_quadratic(o);
}

// "d=2 N=3 γ=0.05 H=1".
inline std::string describe(const ChainCase& k) {
  return fmt::format("d={} N={} γ={} H={}", k.dim, k.clients, k.gamma, k.local_steps);
}

// Expects a closed form's stationary moments to equal the brute-force ones (relative error of
// each ≤ kBruteForceTolerance) and prints both errors after `what`.
inline void expect_brute_force_match(const std::string& what, const Matrix& exact_mean,
                                     const Matrix& exact_cov, const Matrix& brute_mean,
                                     const Matrix& brute_cov) {
  const double em = relative_error(exact_mean, brute_mean);
  const double ec = relative_error(exact_cov, brute_cov);
  fmt::print("{}: mean rel.err {:.2e}, cov rel.err {:.2e}\n", what, em, ec);
  EXPECT_LE(em, kBruteForceTolerance) << what;
  EXPECT_LE(ec, kBruteForceTolerance) << what;
}

}  // namespace fedverify::verify
