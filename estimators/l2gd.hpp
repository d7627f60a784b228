// Sampler for L2GD (THEORY (P2)) and compressed L2GD (THEORY (P5)) on any Problem, K
// independent chains. Each chain is a personalised model x = (x_1, …, x_n) (d×n, column i =
// client i). Per iteration one coin ξ ~ Bernoulli(p) decides for all clients:
//   ξ = 0 (local step):     x_i ← x_i − α/(n(1−p)) ∇f_i(x_i)     (full local gradients)
//   ξ = 1 (averaging step): x_i ← x_i − θ (𝒬_i(x_i) − 𝒬_M(ȳ)),  ȳ = (1/n) Σ_j 𝒬_j(x_j),
//                            θ = αλ/(np); with identity compressors this is
//                            x_i ← (1 − θ) x_i + θ x̄.
// The compressed averaging step is the bidirectional scheme of [CL2GD]: clients upload 𝒬_i(x_i),
// the master broadcasts 𝒬_M of their mean; it is unbiased, so E x^k follows the uncompressed
// mean recursion exactly on quadratics.
//
// Randomness: the coin of chain c from Stream(seed, personalised, c); client i's uplink
// compressor from Stream(seed, compression, c, i), the master's from
// Stream(seed, compression, c, n). Same seed ⇒ bit-identical results for any thread count.
//
// Communication: without compression the master can run consecutive averaging steps alone, so
// a round is an averaging step that follows a local step (ξ_{−1} = 1: all clients start from
// the same model). With a non-identity compressor the master only sees compressed models, so
// every averaging step is a round. Bits per round: n uploads + n downloads of one compressed
// d-vector (estimators/compressors.hpp, compressed_bits).
#pragma once

#include <cstdint>
#include <vector>

#include "theory/personalised.hpp"
#include "theory/problem.hpp"

namespace fedverify::estimators {

struct L2gdSimulationSpec {
  theory::L2gdSetting setting;
  int chains = 256;
  int iterations = 100;  // k = 0, …, iterations are recorded
  std::uint64_t seed = 1;
  int threads = 0;                  // 0: OpenMP default; results never depend on it
  theory::CompressorSpec uplink;    // 𝒬_i, identity by default
  theory::CompressorSpec downlink;  // 𝒬_M, identity by default
  Matrix initial_state;             // d×n; empty: every chain starts at 0
};

struct L2gdSimulationResult {
  Matrix x_lambda;                  // the reference x(λ) (d×n)
  std::vector<double> mse_mean;     // mean over chains of ‖x^k − x(λ)‖², k = 0..iterations
  std::vector<double> mse_se;       // its standard error (chains independent: sd/√K)
  Matrix final_mean;                // mean over chains of x^K (d×n)
  Matrix final_se;                  // its standard error, entrywise
  double rounds_mean = 0;           // communication rounds per chain
  double averaging_steps_mean = 0;  // averaging steps per chain
  double bits_mean = 0;             // bits communicated per chain
  bool diverged = false;            // some chain left the finite numbers
  double seconds = 0;
};

// Throws InputError for invalid settings ("--lambda", "--p", "--gamma", "--chains",
// "--rounds", "--uplink", "--downlink", "initial_state").
L2gdSimulationResult simulate_l2gd(const theory::Problem& problem, const L2gdSimulationSpec& spec);

}  // namespace fedverify::estimators
