#include "estimators/samplers/chains.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "estimators/samplers/kernels/linearised_twin.hpp"
#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/parallel_errors.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/optimum.hpp"

namespace fedverify::estimators {

namespace {

// One run's block in lanes: its iterate and auxiliary states.
struct BlockLanes {
  LaneBuffer x, auxiliary;  // d × kLanes each, auxiliary state j at offset j·d·kLanes
  std::vector<double*> auxiliary_lanes;  // auxiliary state j at auxiliary_lanes[j]
};

// Scratch memory of one block (one per thread): the engine's lanes (one BlockLanes per run), the
// kernel's and the round's.
struct Workspace {
  std::vector<BlockLanes> runs;
  KernelWorkspace kernel;
  RoundScratch scratch;
};

}  // namespace

std::string Divergence::describe() const {
  if (!diverged) return {};
  // JSON and the reader get no nan or inf: a number that overflowed is "not finite".
  const auto number = [](double v) {
    return std::isfinite(v) ? fmt::format("{}", v) : std::string("not finite");
  };
  return fmt::format("chain {} diverged in round {}: |x| = {} (limit {})", chain, round,
                     number(norm), number(radius));
}

double default_divergence_radius(const theory::Problem& problem, const Matrix& initial) {
  const double start = initial.cols() > 0 ? initial.colwise().norm().maxCoeff() : 0.0;
  return kDivergenceFactor * (1.0 + theory::minimizer(problem).norm() + start);
}

// One run of the algorithm (RoundSampler::runs; FedRR has two).
struct Run {
  double gamma = 0;
  Purpose purpose = Purpose::gradient_noise;
  Matrix x;                       // d×K
  std::vector<Matrix> auxiliary;  // RoundSampler::auxiliary_states, d×K each
};

struct ChainEnsemble::Impl {
  const theory::Problem* problem = nullptr;
  SamplerOptions options;
  std::vector<double> weights;                // p_c, empty for equal weights (RoundBlock::weights)
  std::shared_ptr<const RoundSampler> round;  // options.round or the registered one
  std::unique_ptr<LocalSampler> sampler;
  std::vector<Run> runs;
  std::vector<const Matrix*> run_states;  // &runs[i].x, for RoundSampler::combine_runs
  std::vector<int> checked_auxiliary;     // auxiliary states checked for divergence
  Matrix combined;                        // the reported state when there are several runs
  int d = 0, k = 0, n = 0, rounds = 0;
  Divergence divergence;
  ChainStepCount steps = 0;
  // advance_recording's buffers, kept between calls: the states of one chunk, and the runs at its
  // start (to replay it).
  std::vector<Matrix> chunk_states;
  std::vector<Run> chunk_start;
  // One workspace per thread of a parallel pass, kept between rounds and calls (no allocation
  // per round); sized before the pass (reserve_workspaces), indexed by omp_get_thread_num().
  std::vector<Workspace> workspaces;

  void reserve_workspaces(int p) {
    if (static_cast<int>(workspaces.size()) < p) workspaces.resize(p);
  }

  bool combines_runs() const { return runs.size() > 1; }
  int blocks() const { return (k + kLanes - 1) / kLanes; }
  // Threads for a parallel pass over the blocks (0: all), at most one per block.
  int threads_for(int requested) const {
    return std::max(1, std::min(requested > 0 ? requested : omp_get_max_threads(), blocks()));
  }
  // Chain-steps of one run in one round: K chains × the local steps of all N clients (N·H
  // unless the round says otherwise: FedNova's Σ_c H_c). Fixed by the options: set once.
  ChainStepCount steps_per_run_round = 0;

  // A block of chains [first, first + active) lives in lanes while rounds run on it: load_block
  // copies run `r`'s columns in, round_block runs round `round_index` (0-based) on the lanes and
  // returns the first bad lane or −1, store_block copies the iterate (and with `auxiliary` the
  // auxiliary states) back. advance_recording keeps a block in lanes for a whole chunk of rounds,
  // so Scaffold's N control variates are not transposed twice per round.
  void load_block(std::size_t r, int first, int active, Workspace& ws) const;
  int round_block(std::size_t r, int round_index, int first, int active, Workspace& ws) const;
  void store_block(std::size_t r, int first, int active, bool auxiliary, Workspace& ws);

  // The state that state() shows, columns [first, first + active): run 0's x, or the runs'
  // combination (RoundSampler::combine_runs).
  void write_state(int first, int active, Matrix& out) const {
    if (!combines_runs()) {
      out.middleCols(first, active) = runs.front().x.middleCols(first, active);
      return;
    }
    round->combine_runs(run_states, first, active, out);
  }

  // Rounds per chunk of advance_recording: as many as 32, within kChunkBytes of recorded states.
  int chunk_rounds() const {
    constexpr double kChunkBytes = 64.0 * 1024 * 1024;
    const double per_round = 8.0 * d * k;
    return static_cast<int>(std::clamp(kChunkBytes / per_round, 1.0, 32.0));
  }
};

void ChainEnsemble::Impl::load_block(std::size_t r, int first, int active, Workspace& ws) const {
  const Run& run = runs[r];
  if (ws.runs.size() < runs.size()) ws.runs.resize(runs.size());
  BlockLanes& lanes = ws.runs[r];
  const std::size_t size = static_cast<std::size_t>(d) * kLanes;
  grow(lanes.x, size);
  load_lanes(run.x, first, active, lanes.x.data());
  const std::size_t count = run.auxiliary.size();
  grow(lanes.auxiliary, count * size);
  lanes.auxiliary_lanes.resize(count);
  for (std::size_t j = 0; j < count; ++j) {
    lanes.auxiliary_lanes[j] = lanes.auxiliary.data() + j * size;
    load_lanes(run.auxiliary[j], first, active, lanes.auxiliary_lanes[j]);
  }
}

int ChainEnsemble::Impl::round_block(std::size_t r, int round_index, int first, int active,
                                     Workspace& ws) const {
  const Run& run = runs[r];
  BlockLanes& lanes = ws.runs[r];
  double* x = lanes.x.data();
  const RoundBlock block{d,
                         n,
                         active,
                         run.gamma,
                         options.step.local_steps,
                         BatchAddress{options.seed, run.purpose, static_cast<std::uint32_t>(first),
                                      0, static_cast<std::uint32_t>(round_index)},
                         x,
                         lanes.auxiliary_lanes.data(),
                         *sampler,
                         ws.kernel,
                         ws.scratch,
                         options.step,
                         weights.empty() ? nullptr : weights.data()};
  round->round(block);
  // Divergence: ‖x‖ beyond the radius or not finite, or a checked auxiliary state not finite.
  for (int lane = 0; lane < active; ++lane) {
    double norm2 = 0.0;
    bool finite = true;
    for (int i = 0; i < d; ++i) norm2 += x[i * kLanes + lane] * x[i * kLanes + lane];
    for (const int j : checked_auxiliary) {
      const double* a = lanes.auxiliary_lanes[j];
      for (int i = 0; i < d; ++i) finite = finite && std::isfinite(a[i * kLanes + lane]);
    }
    if (!finite || !(std::sqrt(norm2) <= options.divergence_radius)) return lane;
  }
  return -1;
}

void ChainEnsemble::Impl::store_block(std::size_t r, int first, int active, bool auxiliary,
                                      Workspace& ws) {
  Run& run = runs[r];
  const BlockLanes& lanes = ws.runs[r];
  store_lanes(lanes.x.data(), first, active, run.x);
  if (!auxiliary) return;
  for (std::size_t j = 0; j < run.auxiliary.size(); ++j) {
    store_lanes(lanes.auxiliary_lanes[j], first, active, run.auxiliary[j]);
  }
}

ChainEnsemble::ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                             const Matrix& initial)
    : impl_(std::make_unique<Impl>()) {
  theory::validate(options.algorithm, options.step);
  theory::require_client_weights(theory::describe(options.algorithm), problem.equal_weights());
  theory::participating_clients(options.step, problem.num_clients());  // S ≤ N (THEORY O5)
  if (initial.rows() != problem.dim() || initial.cols() < 1) {
    throw InputError(
        fmt::format("initial_state: expected {} rows and at least one chain, got {}×{}",
                    problem.dim(), initial.rows(), initial.cols()));
  }
  if (!initial.allFinite()) throw InputError("initial_state: not finite");
  if (initial.cols() > std::numeric_limits<std::int32_t>::max() / 2) {
    throw InputError("--chains: too many chains");
  }
  Impl& m = *impl_;
  m.problem = &problem;
  m.options = options;
  if (!problem.equal_weights()) {
    for (int c = 0; c < problem.num_clients(); ++c) m.weights.push_back(problem.weight(c));
  }
  if (!(options.divergence_radius >= 0.0)) {
    throw InputError("divergence_radius: must be >= 0");
  }
  if (options.divergence_radius == 0.0) {
    m.options.divergence_radius = default_divergence_radius(problem, initial);
  }
  m.round =
      options.round ? options.round : RoundRegistry::get(theory::to_string(options.algorithm));
  // With the linearised twin the state is (x, y), y starting at x (SamplerOptions).
  const Matrix start_state = options.linearised_twin ? Matrix(initial.replicate(2, 1)) : Matrix();
  const Matrix& first = options.linearised_twin ? start_state : initial;
  m.sampler =
      options.linearised_twin ? make_linearised_twin_sampler(problem) : make_local_sampler(problem);
  m.d = static_cast<int>(first.rows());
  m.k = static_cast<int>(initial.cols());
  m.n = problem.num_clients();
  m.steps_per_run_round =
      static_cast<ChainStepCount>(m.k) * m.round->local_steps_per_round(options, m.n);
  const std::vector<AuxiliaryState> auxiliary = m.round->auxiliary_states(options, m.n);
  for (std::size_t j = 0; j < auxiliary.size(); ++j) {
    if (auxiliary[j].checked_for_divergence) m.checked_auxiliary.push_back(static_cast<int>(j));
  }
  const AuxiliaryStart start{m.d, m.k, m.n, options.seed};
  for (const RunSpec& spec : m.round->runs(options)) {
    Run run{spec.step_factor * options.step.gamma, spec.purpose, first,
            std::vector<Matrix>(auxiliary.size(), Matrix::Zero(m.d, m.k))};
    m.round->initialise_auxiliary(start, run.auxiliary);
    m.runs.push_back(std::move(run));
  }
  if (m.runs.empty()) throw std::logic_error("ChainEnsemble: the round declares no run");
  for (const Run& run : m.runs) m.run_states.push_back(&run.x);
  if (m.combines_runs()) {
    m.combined = first;
    m.write_state(0, m.k, m.combined);
  }
}

ChainEnsemble::ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                             const Vector& initial, int chains)
    : ChainEnsemble(problem, options, [&] {
        if (chains < 1) {
          throw InputError(fmt::format("--chains: must be >= 1, got {}", chains));
        }
        if (initial.size() != problem.dim()) {
          throw InputError(fmt::format("initial_state: expected {} entries, got {}", problem.dim(),
                                       initial.size()));
        }
        return Matrix(initial.replicate(1, chains));
      }()) {}

ChainEnsemble::~ChainEnsemble() = default;
ChainEnsemble::ChainEnsemble(ChainEnsemble&&) noexcept = default;
ChainEnsemble& ChainEnsemble::operator=(ChainEnsemble&&) noexcept = default;

int ChainEnsemble::dim() const { return impl_->d; }
int ChainEnsemble::chains() const { return impl_->k; }
int ChainEnsemble::num_clients() const { return impl_->n; }
int ChainEnsemble::rounds_done() const { return impl_->rounds; }
const SamplerOptions& ChainEnsemble::options() const { return impl_->options; }
const Matrix& ChainEnsemble::state() const {
  return impl_->combines_runs() ? impl_->combined : impl_->runs.front().x;
}
const Matrix& ChainEnsemble::run(int which) const { return impl_->runs.at(which).x; }
const Divergence& ChainEnsemble::divergence() const { return impl_->divergence; }
ChainStepCount ChainEnsemble::chain_steps() const { return impl_->steps; }

const std::vector<Matrix>& ChainEnsemble::auxiliary(int which) const {
  return impl_->runs.at(which).auxiliary;
}

Matrix ChainEnsemble::stacked_state() const {
  const Run& run = impl_->runs.front();
  return impl_->round->stacked_state(run.x, run.auxiliary);
}

const RoundSampler& ChainEnsemble::round() const { return *impl_->round; }

bool ChainEnsemble::advance(int threads) {
  Impl& m = *impl_;
  if (m.divergence.diverged) return false;
  const int blocks = m.blocks();
  const int p = m.threads_for(threads);
  for (std::size_t r = 0; r < m.runs.size(); ++r) {
    Run& run = m.runs[r];
    // First bad chain per block; the minimum over blocks does not depend on scheduling.
    std::vector<int> bad(blocks, -1);
    ParallelErrors errors;
    m.reserve_workspaces(p);
#pragma omp parallel num_threads(p) if (p > 1)
    {
      Workspace& ws = m.workspaces[omp_get_thread_num()];
#pragma omp for schedule(static)
      for (int b = 0; b < blocks; ++b) {
        errors.run(b, [&] {
          const int first = b * kLanes;
          const int active = std::min(kLanes, m.k - first);
          m.load_block(r, first, active, ws);
          const int lane = m.round_block(r, m.rounds, first, active, ws);
          m.store_block(r, first, active, true, ws);
          if (lane >= 0) bad[b] = first + lane;
        });
      }
    }
    errors.rethrow();
    m.steps += m.steps_per_run_round;
    for (int b = 0; b < blocks; ++b) {
      if (bad[b] >= 0) {
        m.divergence = {true, m.rounds + 1, bad[b], run.x.col(bad[b]).norm(),
                        m.options.divergence_radius};
        break;
      }
    }
  }
  m.rounds += 1;
  if (m.combines_runs()) m.write_state(0, m.k, m.combined);
  return !m.divergence.diverged;
}

int ChainEnsemble::advance_recording(int rounds, int threads, const StateRecorder& record) {
  Impl& m = *impl_;
  const int blocks = m.blocks();
  const int p = m.threads_for(threads);
  int done = 0;
  auto one_round = [&] {  // the round-by-round path; false once a chain has diverged
    if (m.divergence.diverged) return false;
    const bool ok = advance(p);
    ++done;
    if (ok) record(m.rounds, state());
    return ok;
  };
  while (done < rounds && !m.divergence.diverged) {
    const int chunk = std::min(rounds - done, m.chunk_rounds());
    m.chunk_start = m.runs;  // to replay the chunk if a chain diverges in it
    std::vector<Matrix>& states = m.chunk_states;
    if (static_cast<int>(states.size()) < chunk) states.resize(chunk, Matrix(m.d, m.k));
    std::vector<int> first_bad_round(blocks, chunk);
    ParallelErrors errors;
    m.reserve_workspaces(p);
#pragma omp parallel num_threads(p) if (p > 1)
    {
      Workspace& ws = m.workspaces[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 4)  // blocks are independent: any thread, same numbers
      for (int b = 0; b < blocks; ++b) {
        errors.run(b, [&] {
          const int first = b * kLanes;
          const int active = std::min(kLanes, m.k - first);
          const std::size_t run_count = m.runs.size();
          for (std::size_t i = 0; i < run_count; ++i) m.load_block(i, first, active, ws);
          for (int r = 0; r < chunk; ++r) {
            bool bad = false;
            for (std::size_t i = 0; i < run_count; ++i) {
              bad = m.round_block(i, m.rounds + r, first, active, ws) >= 0 || bad;
              m.store_block(i, first, active, r + 1 == chunk, ws);  // x for write_state
            }
            m.write_state(first, active, states[r]);
            if (bad) {  // the chunk is replayed from chunk_start: the lanes are dropped
              first_bad_round[b] = r;
              break;
            }
          }
        });
      }
    }
    errors.rethrow();
    const int bad_round = *std::min_element(first_bad_round.begin(), first_bad_round.end());
    if (bad_round < chunk) {
      // Replay up to the bad round round by round: divergence() and the state at the stop are
      // then exactly those of advance().
      m.runs = m.chunk_start;
      for (int r = 0; r <= bad_round && one_round(); ++r) {
      }
      return done;
    }
    m.steps += static_cast<ChainStepCount>(m.runs.size()) * chunk * m.steps_per_run_round;
    for (int r = 0; r < chunk; ++r) record(m.rounds + r + 1, states[r]);
    m.rounds += chunk;
    done += chunk;
    if (m.combines_runs()) m.combined = states[chunk - 1];
  }
  return done;
}

int ChainEnsemble::advance(int rounds, int threads, const RoundCallback& after_round) {
  int done = 0;
  while (done < rounds) {
    const bool ok = advance(threads);
    ++done;
    if (!ok) break;
    if (after_round && !after_round(*this)) break;
  }
  return done;
}

}  // namespace fedverify::estimators
