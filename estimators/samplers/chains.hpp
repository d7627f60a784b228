// Samplers: K independent chains of an algorithm (SGD, FedAvg, Scaffold, FedRR, THEORY §1: F0,
// S0, R0, G0) advanced at once. The ensemble state is d×K, one column per chain.
//
// This is the chain engine: it owns what every algorithm shares (states, blocks of kLanes chains,
// OpenMP threads over blocks, noise streams, divergence, recording and chunking) and calls the
// algorithm's round (estimators/samplers/round.hpp; one file per algorithm under algorithms/)
// once per block and round, with the problem kind's local-step kernel (kernels/):
//   QuadraticProblem: A_c (x − b_c) + R_c z, z ~ N(0, I), R_c = noise_factor(c), so Cov = S_c;
//   LogisticProblem:  mean over a minibatch of B indices, uniform with replacement over the
//                     client's n_c samples, of φ'(s_j) y_j a_j, plus λx      THEORY (§6).
//
// Randomness: chain k, client c, round t draws its numbers from the batch stream
// (seed, purpose, k, c, t) of theory/base/rng.hpp — so chain k sees the same noise whatever K,
// the number of threads or the block partition, and two ensembles with the same seed but
// different starts see identical noise (synchronous coupling).
//
// Implementation: chains are advanced in blocks of kLanes (estimators/samplers/lanes.hpp:
// coordinate-major inside a block, one SIMD lane per chain); a block is padded with idle lanes,
// so every chain runs the same instructions whatever its block holds (bench/README.md has the
// layout measurements).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "theory/base/rng.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::estimators {

class RoundSampler;  // estimators/samplers/round.hpp

struct SamplerOptions {
  theory::Algorithm algorithm = theory::Algorithm::fedavg;
  theory::RunSetting step;
  std::uint64_t seed = 1;
  theory::NoiseCoupling coupling = theory::NoiseCoupling::independent;  // FedRR only
  // A chain has diverged when its state is not finite or ‖x‖ exceeds this radius;
  // 0 selects default_divergence_radius().
  double divergence_radius = 0;
  // The round to run; null: the one registered for `algorithm` (RoundRegistry). Tests inject
  // variants here (verify/planted: Scaffold bugs that real frameworks shipped).
  std::shared_ptr<const RoundSampler> round;
  // Run every chain with its coupled linearised twin (THEORY (L3), kernels/linearised_twin.hpp):
  // the chain state is then stacked (x, y), 2d rows (dim() = 2d, state() 2d×K, the auxiliary
  // states too), y starting where x starts; the x rows are those of a run without the twin, bit
  // for bit. The divergence radius is that of x alone (default_divergence_radius of the d-row
  // initial state), applied to ‖(x, y)‖.
  bool linearised_twin = false;
};

// The default divergence radius: kDivergenceFactor · (1 + ‖x*‖ + max_k ‖x_0,k‖).
// A stable chain stays within O(‖x*‖ + ‖x_0‖ + √(γ tr C̄ / μ)) of the origin; an unstable one
// grows geometrically, so a factor of 10⁶ flags divergence within a few dozen rounds of its
// onset while never being reached by a chain with a stationary law on sane problems.
inline constexpr double kDivergenceFactor = 1e6;
double default_divergence_radius(const theory::Problem& problem, const Matrix& initial);

// Where the first chain left the finite ball (lowest chain index of the first bad round).
struct Divergence {
  bool diverged = false;
  int round = -1;  // 1-based number of the round after which the state was bad
  int chain = -1;
  double norm = 0;  // ‖x‖ of that chain (inf or NaN when not finite)
  double radius = 0;
  std::string describe() const;
};

// One local stochastic-gradient step of one client in one chain (both runs count for FedRR).
using ChainStepCount = std::int64_t;

class ChainEnsemble {
 public:
  // Every chain starts at its own column of `initial` (d×K).
  ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                const Matrix& initial);
  // All K chains start at `initial` (length d).
  ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                const Vector& initial, int chains);
  ~ChainEnsemble();
  ChainEnsemble(ChainEnsemble&&) noexcept;
  ChainEnsemble& operator=(ChainEnsemble&&) noexcept;

  int dim() const;
  int chains() const;
  int num_clients() const;
  int rounds_done() const;
  const SamplerOptions& options() const;

  // The global iterate x_t, d×K; for FedRR the extrapolation χ_t = 2 x_t^{(γ)} − x_t^{(2γ)}.
  const Matrix& state() const;
  // FedRR: the two FedAvg runs (step γ and 2γ). Otherwise run(0) is x_t.
  const Matrix& run(int which) const;
  // The auxiliary per-chain states of run `which` (d×K each; RoundSampler::auxiliary_states),
  // e.g. Scaffold's control variates (algorithms/scaffold.hpp: scaffold_correction).
  const std::vector<Matrix>& auxiliary(int which = 0) const;
  // The whole Markov state of run 0 in the order of theory/closed_forms, e.g. Scaffold's
  // (x, ξ_1, …, ξ_N), d(N+1)×K (the order of theory::scaffold_exact); x for FedAvg.
  Matrix stacked_state() const;
  // The round that advances the chains (the injected or the registered one).
  const RoundSampler& round() const;

  const Divergence& divergence() const;
  ChainStepCount chain_steps() const;

  // Advances every chain by one round over blocks of chains on `threads` OpenMP threads
  // (0: all); the result never depends on `threads`. Returns false, and records divergence(),
  // when some chain diverged (then the ensemble must not be advanced further).
  bool advance(int threads = 1);

  // Advances up to `rounds` rounds; after each, calls `after_round(*this)` (in the calling
  // thread) and stops early when it returns false or a chain diverged. Returns rounds done.
  using RoundCallback = std::function<bool(const ChainEnsemble&)>;
  int advance(int rounds, int threads, const RoundCallback& after_round);

  // Advances up to `rounds` rounds and hands the state after each (round number counted from 1,
  // state() of that round) to `record`, in order, in the calling thread; stops when a chain
  // diverges. States, divergence() and the final ensemble are bit-identical to `rounds` calls of
  // advance(threads). On more than one thread each thread carries its own blocks of chains
  // through a chunk of up to 32 rounds without waiting for the others (advance() meets at a
  // barrier every round, which costs most of the time on a loaded machine); a chunk in which a
  // chain diverges is replayed round by round. Returns the rounds done (as advance()).
  using StateRecorder = std::function<void(int round, const Matrix& state)>;
  int advance_recording(int rounds, int threads, const StateRecorder& record);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedverify::estimators
