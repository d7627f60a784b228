// Seeded generator of heterogeneous quadratic games (THEORY M1), built from two quadratic
// problems of the quadratic generator (generators.hpp) with the same knobs: the θ-player's
// (dimension p) gives A_i and a_i = −A_i b_i^θ, the τ-player's (dimension q) gives C_i and
// c_i = −C_i b_i^τ, so that without coupling client i's equilibrium is (b_i^θ, b_i^τ). The
// coupling is B_i = coupling · (B₀ + hessian_spread · Z_i)/(p q)^{1/4} with B₀, Z_i Gaussian
// (stream parts of their own), and the noise is block-diagonal (the two problems' S_i).
#pragma once

#include <cstdint>

#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

struct QuadraticGameGeneratorOptions {
  int theta_dim = 2;            // p ≥ 1
  int tau_dim = 2;              // q ≥ 1
  int clients = 3;              // N ≥ 1
  double condition = 10.0;      // of every A_i and C_i (largest eigenvalue 1), ≥ 1
  double optimum_spread = 1.0;  // heterogeneity of the clients' own equilibria, ≥ 0
  double hessian_spread = 1.0;  // ∈ [0, 1]: 0 identical blocks, 1 independent ones
  double coupling = 0.5;        // scale of B_i, ≥ 0
  double noise = 1.0;           // scale of the noise covariances, ≥ 0
  std::uint64_t seed = 0;
};

// Throws InputError naming the option ("generator.coupling: …"); the same options always give
// the same game, bit for bit.
QuadraticGame generate_quadratic_game(const QuadraticGameGeneratorOptions& options);

}  // namespace fedverify::theory
