// The unit of extension of the samplers: one round of one algorithm on one block of chains.
//
// The chain engine (chains.hpp, ChainEnsemble) owns everything that is the same for every
// algorithm: the d×K states, blocks of kLanes chains (lanes.hpp), OpenMP threads over blocks,
// the counter-addressed noise streams, divergence detection, recording and chunking. For each
// round it calls the algorithm's RoundSampler once per block and run, with the block's iterate x_t
// in lanes (d × kLanes, coordinate-major), the algorithm's auxiliary per-chain state in lanes, and
// the problem-kind kernel (kernels/local_sampler.hpp: H local steps of one client, with an
// optional correction ξ); the round writes x_{t+1} and the new auxiliary state in place.
//
// An algorithm also declares what else the engine asks of it: its runs (one by default; FedRR has
// two, at γ and 2γ, with their noise purposes), how the reported state is formed from the runs
// (FedRR's χ = 2x^{(γ)} − x^{(2γ)}), its auxiliary states (d×K each, per run; Scaffold: the
// server and client control variates) and their start (0 by default).
//
// Algorithms register themselves under theory::to_string(algorithm) (RoundRegistry, a static
// registrar in their own .cpp: algorithms/fedavg.cpp, scaffold.cpp, fedrr.cpp); the engine uses
// the registered round of SamplerOptions::algorithm unless SamplerOptions::round injects another
// implementation (tests: verify/planted). docs/ADDING_AN_ALGORITHM.md has the recipe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::estimators {

// One run of an algorithm: the engine advances every run of every chain each round, each with its
// own iterate, auxiliary state and noise streams.
struct RunSpec {
  double step_factor = 1.0;                   // the run's step is step_factor · γ
  Purpose purpose = Purpose::gradient_noise;  // the purpose of its noise streams
};

// One per-chain auxiliary state of an algorithm (d×K per run, kept by the engine).
struct AuxiliaryState {
  std::string name;
  // A chain whose state has a non-finite entry here has diverged (the iterate itself is always
  // checked: finite and ‖x‖ within the divergence radius).
  bool checked_for_divergence = false;
};

// What the start of the auxiliary states may depend on.
struct AuxiliaryStart {
  int dim = 0;
  int chains = 0;
  int clients = 0;
  std::uint64_t seed = 0;
};

// Scratch buffers of a round, one set per thread, reused block after block.
class RoundScratch {
 public:
  // Buffers 0 … kFirstFree − 1 are used by for_each_client; a round uses kFirstFree onwards.
  enum Slot : int { kClientIterate, kClientIterateNext, kCorrection, kCorrectionNext, kFirstFree };
  // Buffer `slot` with room for at least `size` doubles (contents left from its last use).
  double* buffer(int slot, std::size_t size) {
    const auto s = static_cast<std::size_t>(slot);
    if (s < buffers_.size() && buffers_[s].size() >= size) [[likely]] {
      return buffers_[s].data();
    }
    return grow_buffer(slot, size);
  }

 private:
  double* grow_buffer(int slot, std::size_t size);  // the first use of a slot or size
  std::vector<LaneBuffer> buffers_;
};

// What a round sees of one block of chains: lanes 0 … active − 1 are chains first … first +
// active − 1 (address.chain = first); idle lanes compute on what they hold and are not stored.
struct RoundBlock {
  int dim;                   // d
  int clients;               // N
  int active;                // chains in the block
  double gamma;              // the run's step (its step_factor · γ)
  int local_steps;           // H
  BatchAddress address;      // seed, the run's purpose, first chain, client 0, round t (0-based)
  double* x;                 // d × kLanes: x_t on entry, x_{t+1} on return
  double* const* auxiliary;  // auxiliary[j]: d × kLanes lanes of auxiliary state j, in and out
  const LocalSampler& sampler;
  KernelWorkspace& kernel;
  RoundScratch& scratch;
  // The whole setting of the run (SamplerOptions::step): the optimisers and the clients sampled
  // per round of --algo fedopt (THEORY O0); `gamma` above is the run's own step.
  const theory::RunSetting& step;
  // The client weights p_c (Σ_c p_c = 1, THEORY (A1)), or nullptr for equal weights; only
  // algorithms registered with weighted_clients see a non-null one (the engine refuses others).
  const double* weights;

  std::size_t size() const { return static_cast<std::size_t>(dim) * kLanes; }
};

class RoundSampler {
 public:
  virtual ~RoundSampler() = default;

  // One round (0-based index block.address.round) of one run on one block.
  virtual void round(const RoundBlock& block) const = 0;

  // The runs, in order (run 0 is the reported one unless combine_runs says otherwise); one run at
  // step γ with the gradient-noise streams by default.
  virtual std::vector<RunSpec> runs(const SamplerOptions& options) const;
  // The reported state of columns [first, first + active) from the runs' iterates (d×K each);
  // called only when there are several runs (with one, the engine reports run 0 itself).
  virtual void combine_runs(std::span<const Matrix* const> runs, int first, int active,
                            Matrix& out) const;
  // The local steps of one chain's round, summed over the N = `clients` clients (the engine's
  // chain-step count); N·H by default.
  virtual ChainStepCount local_steps_per_round(const SamplerOptions& options, int clients) const;
  // The auxiliary per-chain states of one run (they may depend on the setting: FedOpt's server
  // optimiser); none by default.
  virtual std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& options,
                                                       int clients) const;
  // Their values at t = 0. The engine has set every entry to 0; the default keeps that.
  virtual void initialise_auxiliary(const AuxiliaryStart& start,
                                    std::vector<Matrix>& auxiliary) const;
  // The chain's whole Markov state in the order theory/closed_forms uses (Scaffold:
  // (x, ξ_1, …, ξ_N), d(N+1)×K), from run 0's iterate and auxiliary states; x by default.
  virtual Matrix stacked_state(const Matrix& x, const std::vector<Matrix>& auxiliary) const;
};

// x with every auxiliary state below it, in order: (x, a_1, …, a_n), d(n + 1) × K — the stacked
// state of an algorithm whose theory orders its chain state that way (FedDyn's h_c, FedPer's v_c,
// Mime's m).
Matrix stack_below(const Matrix& x, const std::vector<Matrix>& auxiliary);

// The local steps of every client of one block: y_c ← x, ξ_c = prepare(c, buffer), H local steps
// y_c ← y_c − γ(g_c(y_c) + ξ_c) (ξ_c none when prepare returns nullptr), then finish(c, y_c).
// `buffer` is d × kLanes of scratch where prepare may write ξ_c. Clients go in pairs (0, 1),
// (2, 3), … so that the kernel may interleave two (the logistic kernel does); each client's
// result, and the order in which finish sees the clients (0, 1, 2, …), are those of one client
// at a time.
template <class Prepare, class Finish>
void for_each_client(const RoundBlock& b, Prepare&& prepare, Finish&& finish) {
  const std::size_t size = b.size();
  double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
  double* y_next = b.scratch.buffer(RoundScratch::kClientIterateNext, size);
  double* corr = b.scratch.buffer(RoundScratch::kCorrection, size);
  double* corr_next = b.scratch.buffer(RoundScratch::kCorrectionNext, size);
  BatchAddress address = b.address;
  for (int c = 0; c < b.clients; c += 2) {
    address.client = static_cast<std::uint32_t>(c);
    std::copy(b.x, b.x + size, y);
    const double* correction = prepare(c, corr);
    if (c + 1 < b.clients) {
      std::copy(b.x, b.x + size, y_next);
      const double* correction_next = prepare(c + 1, corr_next);
      b.sampler.local_steps_pair(c, address, b.active, b.gamma, b.local_steps, y, correction,
                                 y_next, correction_next, b.kernel);
      finish(c, static_cast<const double*>(y));
      finish(c + 1, static_cast<const double*>(y_next));
    } else {
      b.sampler.local_steps(c, address, b.active, b.gamma, b.local_steps, y, correction, b.kernel);
      finish(c, static_cast<const double*>(y));
    }
  }
}

// Rounds by algorithm name (theory::to_string(algorithm): "sgd", "fedavg", …). Each algorithm's
// .cpp registers its round with a namespace-scope registrar,
//   const bool registered = RoundRegistry::add("fedavg", std::make_shared<FedAvgRound>());
// (the layer is linked as a whole archive, so the registrar is kept).
class RoundRegistry {
 public:
  // Returns true (for the registrar); throws std::logic_error when `name` is taken.
  static bool add(const std::string& name, std::shared_ptr<const RoundSampler> round);
  // The round registered under `name`, or nullptr.
  static std::shared_ptr<const RoundSampler> find(std::string_view name);
  // The same; throws InputError naming --algo and listing the known names when there is none.
  static std::shared_ptr<const RoundSampler> get(std::string_view name);
  // The registered names, sorted.
  static std::vector<std::string> names();
};

}  // namespace fedverify::estimators
