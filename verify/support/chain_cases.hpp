// Small quadratic settings on which the closed forms of theory/ are compared with independent
// computations (brute-force iteration, direct calls): tests only.
#pragma once

#include <cstdint>
#include <vector>

#include "theory/problems/generators.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/support/small_problems.hpp"

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

}  // namespace fedverify::verify
