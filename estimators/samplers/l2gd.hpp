// Samplers for L2GD (THEORY (P2)), compressed L2GD (THEORY (P5)), L2GD with partial
// participation and L2SGD+ (variance-reduced, finite sums) on any Problem, K
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
// Partial participation (spec.participating = τ, 2 ≤ τ < n): an averaging step involves a set S
// of τ clients drawn uniformly without replacement (Stream(seed, personalised, c, 1)); only they
// move, toward the average of the sampled models:
//   x_i ← x_i − θ_τ (𝒬_i(x_i) − 𝒬_M(ȳ_S)),  ȳ_S = (1/τ) Σ_{j∈S} 𝒬_j(x_j),  i ∈ S,
//   θ_τ = θ (n − 1)/(τ − 1).
// The factor makes the step unbiased: E[1{i∈S} (x_i − x̄_S)] = ((τ − 1)/(n − 1)) (x_i − x̄), so
// E x^k follows the full-participation mean recursion exactly on quadratics; τ = n is L2GD.
//
// Communication: without compression the master can run consecutive averaging steps alone, so
// a round is an averaging step that follows a local step (ξ_{−1} = 1: all clients start from
// the same model). With a non-identity compressor the master only sees compressed models, so
// every averaging step is a round; the same holds under partial participation (τ < n), where
// each averaging step contacts a fresh set of clients. Bits per round: τ uploads + τ downloads
// of one compressed d-vector (estimators/samplers/compressors.hpp, compressed_bits), τ = n by
// default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theory/problems/limits.hpp"
#include "theory/problems/personalised_objective.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::estimators {

struct L2gdSimulationSpec {
  theory::L2gdSetting setting{};
  int chains = 256;
  int iterations = 100;  // k = 0, …, iterations are recorded
  std::uint64_t seed = 1;
  int threads = 0;                    // 0: OpenMP default; results never depend on it
  theory::CompressorSpec uplink{};    // 𝒬_i, identity by default
  theory::CompressorSpec downlink{};  // 𝒬_M, identity by default
  Matrix initial_state{};             // d×n; empty: every chain starts at 0
  int participating = 0;              // τ clients per averaging step; 0: all n
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;  // bytes (--memory-budget)
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
  double participations_mean = 0;   // client participations (uploads) per chain
  // Some chain left the finite numbers, or a statistic over the chains overflowed; then
  // `divergence` says which and where, and the trajectories carry no meaning.
  bool diverged = false;
  std::string divergence;
  double seconds = 0;
};

// The memory a run would allocate, in bytes (saturating): every chain's record of
// ‖x^k − x(λ)‖², k = 0..T, and its final d×n model, kept until the chains are summarised, plus
// the summaries and, for L2SGD+ (`finite_sums`), each running chain's SAGA tables (Σ_i m_i d):
//   8·K·(T + 1 + dn) + 8·2(T + 1) + 8·P·(Σ_i m_i d + 3dn),  P threads.
std::int64_t l2gd_memory_bytes(const theory::Problem& problem, int chains, int iterations,
                               int threads, bool finite_sums);

// Throws InputError for invalid settings ("--lambda", "--p", "--gamma", "--chains",
// "--rounds", "--threads", "--uplink", "--downlink", "initial_state", "--participating"), for
// sizes outside their documented ranges (theory/problems/limits.hpp) and when l2gd_memory_bytes
// exceeds spec.memory_budget.
L2gdSimulationResult simulate_l2gd(const theory::Problem& problem, const L2gdSimulationSpec& spec);

// ---------------------------------------------------------------------------------------------
// L2SGD+ ([L2GD], Algorithm 2, "loopless local SGD with variance reduction") for finite sums
// f_i = (1/m_i) Σ_j f_ij. Quadratic problems: m_i = 1 (f_i1 = f_i). Logistic problems:
// f_ij(x) = φ(y_j a_jᵀ x) + (l2/2)‖x‖², one term per sample.
//
// State per client: x_i, the SAGA table J_i = (J_i1, …, J_im) of stored sample gradients and
// the stored averaging gradient Ψ_i, all zero at the start; J̄_i = (1/m) Σ_j J_ij. One coin ξ:
//   ξ = 0: each client draws j uniformly and
//          x_i ← x_i − (α/n) [ (∇f_ij(x_i) − J_ij)/(1 − p) + J̄_i + Ψ_i ],  J_ij ← ∇f_ij(x_i);
//   ξ = 1: x_i ← x_i − (α/n) [ (λ(x_i − x̄) − Ψ_i)/p + J̄_i + Ψ_i ],     Ψ_i ← λ(x_i − x̄)
// (memories updated with the pre-step x). Taking E over ξ and j, the bracket is
// ∇f_i(x_i) + λ(x_i − x̄) = column i of n∇F(x) (THEORY (P1)): an unbiased SAGA-type estimate
// whose variance vanishes at x(λ), so the iteration converges linearly to x(λ) itself.
// With variance_reduction = false the memories stay zero: L2SGD, i.e. L2GD (P2) with one
// sampled f_ij per local step in place of ∇f_i (for m_i = 1 bit-identical to simulate_l2gd).
// L2GD+ (full_local_gradients): one memory per client holding the last full ∇f_i (L2SGD+ with
// m_i = 1 on any problem). L2SGD++ (working = τ < n, reconstructed, THEORY (P7)): a local step
// draws τ working clients uniformly without replacement (Stream(seed, personalised, c, 1)); they
// take the step above with (1 − p) replaced by (τ/n)(1 − p), the others move by −(α/n)(J̄_i + Ψ_i)
// (their memories only); averaging steps involve every client. Exact counterparts on quadratics:
// theory/algorithms/l2gd_plus.hpp.
//
// Randomness: the coin from Stream(seed, personalised, c) (the same draws as simulate_l2gd),
// client i's sample index from Stream(seed, gradient_noise, c, i).
// Communication: as uncompressed L2GD, a round is an averaging step after a local step (in a
// run of averaging steps x̄ moves by −(α/n) mean_i J̄_i, which the master computes once the
// clients have uploaded x_i and J̄_i). Bits per round: n uploads of two d-vectors (x_i, J̄_i) and
// n downloads of one (x̄), 64-bit floats.
struct L2sgdPlusSpec {
  theory::L2gdSetting setting{};
  int chains = 256;
  int iterations = 100;
  std::uint64_t seed = 1;
  int threads = 0;
  bool variance_reduction = true;     // false: L2SGD (no control variates)
  bool full_local_gradients = false;  // true: L2GD+ (one memory: the last full ∇f_i)
  int working = 0;                    // τ working clients per local step (L2SGD++); 0: all
  Matrix initial_state{};             // d×n; empty: 0
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;  // bytes (--memory-budget)
};

// Number of terms m_i of the finite sum of client i (1 for quadratics, n_c for logistic).
int finite_sum_size(const theory::Problem& problem, int client);

// The largest smoothness constant of a term f_ij, L̃ (THEORY (P7)): logistic max_j ‖a_j‖²/4 + l2,
// quadratic (m_i = 1) the problem's L.
double finite_sum_smoothness(const theory::Problem& problem);

// ∇f_ij(x) of the finite-sum view above.
Vector sample_gradient(const theory::Problem& problem, int client, int sample, const Vector& x);

// Throws InputError as simulate_l2gd ("--lambda", "--p", "--gamma", "--chains", "--rounds",
// "initial_state", "--participating"). participations_mean counts n per round.
L2gdSimulationResult simulate_l2sgd_plus(const theory::Problem& problem, const L2sgdPlusSpec& spec);

}  // namespace fedverify::estimators
