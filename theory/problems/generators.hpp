// Seeded generator of heterogeneous quadratic federated problems (docs/PROBLEM_FORMATS.md, "Where
// files come from").
//
// Client c has f_c(x) = ½ (x − b_c)ᵀ A_c (x − b_c) with additive gradient noise N(0, S_c):
//   A_c = (1 − s) A₀ + s A_c',   s = hessian_spread ∈ [0, 1],
// where A₀ (shared) and A_c' (one per client) are Q diag(λ) Qᵀ with Q Haar-random orthogonal
// and λ log-uniform in [1/condition, 1] (for d ≥ 2 the two extremes are always present, so
// each of them has condition number exactly `condition`). A convex combination of symmetric
// matrices with spectra in [1/κ, 1] has its spectrum in [1/κ, 1] (Weyl), so μ ≥ 1/κ, L ≤ 1.
//   b_c = b₀ + optimum_spread · z_c,   b₀, z_c ~ N(0, I_d),
//   S_c = noise · W_c W_cᵀ / d,         W_c with N(0, 1) entries   (E S_c = noise · I).
// Randomness only through estimators::Stream(seed, Purpose::problem_generator, part, client).
#pragma once

#include <cstdint>

#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

struct QuadraticGeneratorOptions {
  int dim = 2;                  // d ≥ 1
  int clients = 3;              // N ≥ 1
  double condition = 10.0;      // L/μ of every client Hessian (L = 1), ≥ 1
  double optimum_spread = 1.0;  // scale of the client optima around their centre, ≥ 0
  double hessian_spread = 1.0;  // 0: identical client Hessians; 1: independent ones
  double noise = 1.0;           // scale of the noise covariances, ≥ 0 (0: deterministic)
  std::uint64_t seed = 0;
};

// Throws InputError naming the option ("generator.condition: …") on invalid options.
void validate(const QuadraticGeneratorOptions& options);

// The same options and seed always give the same problem, bit for bit.
QuadraticProblem generate_quadratic(const QuadraticGeneratorOptions& options);

}  // namespace fedverify::theory
