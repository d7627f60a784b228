// Seeded generator of federated linear instrumental-variable data (THEORY M5), a confounded
// linear model with a known θ₀ so that consistency can be measured. Client i draws n samples
//   z ~ N(μ_i, I_{d_z}),   e ~ N(0, 1),   v ~ N(0, 0.1²),
//   x = π_iᵀ z + confounding · e + v   (d_x = 1),
//   y = θ₀ᵀ(1, x) + e   (θ₀ the same on every client unless slope_spread > 0),
// so E[e | z] = 0 (z is a valid instrument) but E[e | x] ≠ 0 (x is endogenous: least squares of
// y on (1, x) is biased by confounding · Var(e)/Var(x)). Heterogeneity moves the clients'
// instrument means μ_i = heterogeneity · 2u_i and first stages π_i = π₀ + heterogeneity · v_i
// (u_i, v_i standard normal; π₀ = (1, 0.5, 0.5, …)). The game uses φ = ψ = affine by default.
#pragma once

#include <cstdint>

#include "theory/problems/linear_iv.hpp"

namespace fedverify::theory {

struct LinearIvGeneratorOptions {
  int clients = 5;             // N ≥ 1
  int samples = 1000;          // n per client ≥ 2
  int instruments = 2;         // d_z ≥ 1
  double heterogeneity = 1.0;  // ≥ 0
  double confounding = 1.0;    // ≥ 0
  double intercept = 0.5;      // θ₀ = (intercept, slope)
  double slope = 1.5;
  // Model heterogeneity: client i's slope is slope + slope_spread · w_i (w_i standard normal), so
  // the clients' moment conditions hold at different θ₀^i (0: one structural model for all).
  double slope_spread = 0.0;
  FeatureMap phi = FeatureMap::affine;
  FeatureMap psi = FeatureMap::affine;
  std::uint64_t seed = 0;
};

// θ₀ = (intercept, slope), the value the GMM estimator is consistent for (φ affine).
Vector linear_iv_truth(const LinearIvGeneratorOptions& options);

// Throws InputError naming the option ("generator.samples: …"); the same options always give the
// same data, bit for bit (client i's samples come from its own stream).
LinearIvGame generate_linear_iv(const LinearIvGeneratorOptions& options);

}  // namespace fedverify::theory
