// simulate(): run an algorithm as K independent Markov chains and estimate its stationary
// moments (docs/ARCHITECTURE.md, Layers). The samplers themselves live in
// estimators/samplers/chains.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::estimators {

struct SimulationSpec {
  theory::Algorithm algorithm = theory::Algorithm::fedavg;
  theory::RunSetting step;
  int chains = 256;   // K
  int rounds = 1000;  // T, including burn-in
  int burn_in = 100;  // B rounds discarded
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all hardware threads; results never depend on it
  theory::NoiseCoupling coupling = theory::NoiseCoupling::independent;  // FedRR only
  Vector initial_state;  // empty: start every chain at 0
  // Batch length of the batch-means MCSE (--batch-rounds). kAutoBatchRounds (0, the default):
  // default_batch_rounds (moments.hpp), one batch per chain when chains ≥ 32, else 32 batch
  // means in all. A given length is used as is; it must be long against the chain's
  // autocorrelation time (τ = (1 + ρ)/(1 − ρ) rounds for contraction ρ) or the MCSE is too
  // small (by 16 % at ρ = 0.9 with b = 30).
  int batch_rounds = kAutoBatchRounds;
  bool record_trace = false;  // keep every round's d×K state (memory grows with rounds)
  // Bytes the run may allocate (--memory-budget); simulation_memory_bytes above it is refused
  // before anything is allocated.
  std::int64_t memory_budget = theory::limits::kDefaultMemoryBudget;
  // The round to run; null: the one registered for `algorithm` (SamplerOptions::round).
  std::shared_ptr<const RoundSampler> round;
  // --control-variate linearised: run every chain with its coupled linearised twin y (THEORY
  // (L3), SamplerOptions::linearised_twin) and estimate the moments of x − y as well
  // (SimulationResult::twin_difference). `moments` and everything else stay those of x, bit for
  // bit.
  bool linearised_twin = false;
};

struct SimulationResult {
  MomentEstimate moments;  // over rounds burn_in..rounds−1 (for FedRR: of χ = 2x_γ − x_2γ)
  // With SimulationSpec::linearised_twin: the same statistics of x − y (y the twin), by the same
  // accumulator over the same rounds; the control-variate estimate of E_π[x] is its mean plus
  // the twin's exact stationary mean (theory::linearised_stationary_mean).     THEORY (L3)
  std::optional<MomentEstimate> twin_difference;
  bool diverged = false;
  std::string divergence;     // what and where, when diverged
  int divergence_round = -1;  // 1-based round after which the first chain left the finite ball
  int divergence_chain = -1;
  int rounds_done = 0;           // rounds actually simulated (< rounds when diverged)
  Matrix final_state;            // d×K (x: without the twin rows)
  std::vector<Matrix> trace;     // when record_trace (x)
  std::int64_t chain_steps = 0;  // local stochastic-gradient steps summed over chains and clients
  double seconds = 0;
};

// The memory a run would allocate, in bytes (saturating at INT64_MAX), from its sizes alone:
//   8·K·d·(2R·(1 + A) + 3 + 5) + 8·K·P      states (R runs with A auxiliary states each, and
//                                            their copy at a chunk's start; the initial,
//                                            reported and final states) and the moment
//                                            accumulator (per-chain halves and batch sums);
//   + min(32·8·K·d, 64 MiB + 8·K·d)          the recorded chunk of rounds;
//   + 8·K·d·(T − B) when the trace is recorded;
//   + P_threads · 8·kLanes·H·max(d, B_batch)  each thread's noise (or minibatch indices) of a
//   round,
// with P = d(d+1)/2 when d ≤ 24 (the covariance MCSE), else 0. An estimate of the large terms,
// not an accounting of every byte.
std::int64_t simulation_memory_bytes(const theory::Problem& problem, const SimulationSpec& spec);

// The checks of a stationary run's sizes that every simulation shares (chain, personalised and
// game families): K ≥ 1, 0 ≤ B < T, threads ≥ 0, batch length in [0, T − B], their documented
// ranges, ≥ 4 recorded rounds (split-R̂) and ≥ 2 batch means (the MCSE). InputError naming the
// flag.
void validate_run_shape(int chains, int rounds, int burn_in, int threads, int batch_rounds);

// Progress callback: (rounds done, rounds total). Called from the calling thread only.
using Progress = std::function<void(int, int)>;

// Throws InputError for invalid specs (names the field, e.g. "--chains"), for sizes outside their
// documented ranges (theory/problems/limits.hpp) and for runs whose simulation_memory_bytes
// exceeds spec.memory_budget (names the flag that dominates it and the bytes).
SimulationResult simulate(const theory::Problem& problem, const SimulationSpec& spec,
                          const Progress& progress = {});

}  // namespace fedverify::estimators
