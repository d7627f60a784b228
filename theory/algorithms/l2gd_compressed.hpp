// Compressed L2GD ([CL2GD], THEORY (P5), (P8)): the constants of its (P3)-form bound, derived here
// for unbiased compressors whose noise is linear given their randomness (random-k), and its exact
// moments with random-k compressors, every mask enumerated (THEORY (P6)).
//
// The averaging step (fedverify's form, THEORY (P5) "Settled here"): clients upload 𝒬_i(x_i), the
// master broadcasts 𝒬_M(ȳ), ȳ = (1/n) Σ_j 𝒬_j(x_j), and
//   x_i ← x_i − θ(𝒬_i(x_i) − 𝒬_M(ȳ))               (own_model_exact = false), or
//   x_i ← x_i − θ(x_i − 𝒬_M(ȳ))                     (own_model_exact = true, the other reading),
// θ = αλ/(np); local steps as L2GD (P2). Both are unbiased.
//
// (P8), derived (Gower et al. 2019, Thm 3.1, with the L2GD estimator; docs/THEORY.md):
//   κ_Q = u + ω_M(1 + ω/n),  u = ω(1 − 1/n) (own model compressed) or ω/n (own model exact),
//   𝓛_Q = (1/n) max{L/(1 − p) + λ²κ_Q/(pμ), λ/p},  α ≤ α_max,Q = 1/(2𝓛_Q),
//   σ_Q² = σ² + (λ²/(n²p)) [u Σ_i ‖x_i(λ)‖² + n ω_M (‖x̄(λ)‖² + (ω/n²) Σ_i ‖x_i(λ)‖²)]
// (σ² of (P3); an equality for random-k: σ_Q² = E‖G_Q(x(λ))‖²), and then
//   E‖x^k − x(λ)‖² ≤ (1 − αμ/n)^k ‖x⁰ − x(λ)‖² + 2nασ_Q²/μ.
// The compression noise scales with ‖x_i‖², not ‖x_i − x̄‖²: compressing models is not
// translation invariant, and the neighbourhood grows with the scale of x(λ).
#pragma once

#include <vector>

#include "theory/algorithms/l2gd.hpp"
#include "theory/closed_forms/branched_moments.hpp"

namespace fedverify::theory {

struct CompressedL2gdConstants {
  double omega = 0;          // ω of the uplink compressors
  double omega_master = 0;   // ω_M of the downlink
  double kappa = 0;          // κ_Q
  double l_cal = 0;          // 𝓛_Q
  double alpha_max = 0;      // 1/(2𝓛_Q)
  double rate = 0;           // 1 − αμ/n
  double sigma2 = 0;         // σ_Q²
  double neighbourhood = 0;  // 2nασ_Q²/μ
};

CompressedL2gdConstants compressed_l2gd_constants(const Problem& problem,
                                                  const L2gdSetting& setting,
                                                  const Matrix& x_lambda, double omega,
                                                  double omega_master, bool own_model_exact);

// rate^k·initial_error2 + neighbourhood                                            THEORY (P8)
double compressed_l2gd_bound(const CompressedL2gdConstants& k, double initial_error2,
                             int iteration);

// The branches of (P6) in the error e = x − x(λ) (size nd): L2GD's local branch and one averaging
// branch per tuple of random-k masks (uplink_k, downlink_k; 0 means the identity), C(d, k)^n·C(d,
// k_M) of them. Throws std::invalid_argument for k outside [0, d].
std::vector<AffineBranch> compressed_l2gd_branches(const QuadraticProblem& problem,
                                                   const L2gdSetting& setting, int uplink_k,
                                                   int downlink_k, bool own_model_exact);

}  // namespace fedverify::theory
