#include "estimators/simulation/simulate.hpp"

#include <fmt/format.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/lanes.hpp"
#include "estimators/samplers/round.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::estimators {

namespace {

namespace limits = theory::limits;

// Numbers drawn per client, chain and round: H·max(d, B) (normals of the quadratic kernel, or
// minibatch indices of the logistic one).
std::int64_t draws_per_client_round(const theory::Problem& problem, int local_steps) {
  std::int64_t width = problem.dim();
  if (problem.kind() == theory::ProblemKind::logistic) {
    width = std::max<std::int64_t>(
        width, dynamic_cast<const theory::LogisticProblem&>(problem).batch_size());
  }
  if (theory::is_linear_sa(problem.kind())) {  // the alias method's two words per draw
    width = std::max<std::int64_t>(
        width, 2 * std::int64_t{dynamic_cast<const theory::LinearSaProblem&>(problem).batch_size()});
  }
  return limits::saturating_mul(local_steps, width);
}

void validate(const theory::Problem& problem, const SimulationSpec& spec) {
  validate_run_shape(spec.chains, spec.rounds, spec.burn_in, spec.threads, spec.batch_rounds);
  theory::validate(spec.algorithm, spec.step);
  limits::require_range("--local-steps", spec.step.local_steps, 1, limits::kMaxLocalStepsSimulate,
                        "simulate draws a client's H steps of noise at once");
  limits::require_range("--local-steps", draws_per_client_round(problem, spec.step.local_steps), 1,
                        limits::kMaxDrawsPerClientRound,
                        "H·max(d, batch_size): numbers drawn per client and round");
  if (spec.initial_state.size() != 0 && spec.initial_state.size() != problem.dim()) {
    throw InputError(fmt::format("initial_state: expected {} entries, got {}", problem.dim(),
                                 spec.initial_state.size()));
  }
  limits::require_memory("--chains",
                         fmt::format("{} chains of dimension {}", spec.chains, problem.dim()),
                         simulation_memory_bytes(problem, spec), spec.memory_budget);
}

}  // namespace

void validate_run_shape(int chains, int rounds, int burn_in, int threads, int batch_rounds) {
  namespace limits = theory::limits;
  if (chains < 1) throw InputError(fmt::format("--chains: must be >= 1, got {}", chains));
  if (burn_in < 0) throw InputError(fmt::format("--burn-in: must be >= 0, got {}", burn_in));
  if (rounds <= burn_in) {
    throw InputError(fmt::format("--rounds: must exceed --burn-in ({}), got {}", burn_in, rounds));
  }
  if (threads < 0) throw InputError(fmt::format("--threads: must be >= 0, got {}", threads));
  if (batch_rounds < 0 || batch_rounds > rounds - burn_in) {
    throw InputError(fmt::format("--batch-rounds: must lie in [0, rounds - burn-in = {}], got {}",
                                 rounds - burn_in, batch_rounds));
  }
  limits::require_range("--chains", chains, 1, limits::kMaxChains);
  limits::require_range("--rounds", rounds, 1, limits::kMaxRounds);
  limits::require_range("--threads", threads, 0, limits::kMaxThreads, "0: all");
  // The statistics must be defined: split-R̂ needs two halves of ≥ 2 rounds, the batch-means
  // MCSE (and so the ESS) at least 2 batch means; otherwise they would be 0/0.
  const int recorded = rounds - burn_in;
  if (recorded < 4) {
    throw InputError(
        fmt::format("--rounds: at least 4 recorded rounds (rounds - burn-in) are needed for "
                    "split-R-hat, got {}",
                    recorded));
  }
  const int batch = batch_rounds > 0 ? batch_rounds : default_batch_rounds(recorded, chains);
  const std::int64_t batch_means = static_cast<std::int64_t>(chains) * (recorded / batch);
  if (batch_means < 2) {
    throw InputError(fmt::format(
        "--batch-rounds: {} chain(s) with batches of {} rounds give {} batch mean; the MCSE needs "
        "at least 2 (more chains or shorter batches)",
        chains, batch, batch_means));
  }
}

std::int64_t simulation_memory_bytes(const theory::Problem& problem, const SimulationSpec& spec) {
  using limits::saturating_add;
  using limits::saturating_mul;
  constexpr std::int64_t kDouble = sizeof(double);
  // ChainEnsemble::advance_recording records chunks of up to 32 rounds within 64 MiB (at least
  // one round).
  constexpr std::int64_t kChunkRounds = 32;
  constexpr std::int64_t kChunkBytes = std::int64_t{64} << 20;
  constexpr std::int64_t kAccumulatorStates = 5;  // two per-chain Welford halves (2 each) + sum
  // The runs' states are copied once more at each chunk's start (to replay it); the initial,
  // the reported and the final state are one more d×K each.
  constexpr std::int64_t kRunCopies = 2;
  constexpr std::int64_t kOtherStates = 3;
  const std::shared_ptr<const RoundSampler> round =
      spec.round ? spec.round : RoundRegistry::get(theory::to_string(spec.algorithm));
  SamplerOptions options;
  options.algorithm = spec.algorithm;
  options.step = spec.step;
  const std::int64_t runs = static_cast<std::int64_t>(round->runs(options).size());
  const std::int64_t auxiliary =
      static_cast<std::int64_t>(round->auxiliary_states(options, problem.num_clients()).size());
  // The twin doubles the chain state (and adds an accumulator of x − y: within the estimate of
  // the doubled state's accumulator).
  const std::int64_t d = static_cast<std::int64_t>(problem.dim()) * (spec.linearised_twin ? 2 : 1);
  const std::int64_t products =
      d <= StationaryMomentsAccumulator::max_dim_for_cov_mcse ? d * (d + 1) / 2 : 0;
  const std::int64_t states_per_chain = saturating_add(
      saturating_mul(kRunCopies * runs, 1 + auxiliary), kOtherStates + kAccumulatorStates);
  std::int64_t bytes =
      saturating_mul(saturating_mul(spec.chains, kDouble),
                     saturating_add(saturating_mul(d, states_per_chain), products));
  const std::int64_t round_bytes = saturating_mul(saturating_mul(spec.chains, kDouble), d);
  bytes = saturating_add(bytes, std::min(saturating_mul(kChunkRounds, round_bytes),
                                         saturating_add(kChunkBytes, round_bytes)));
  if (spec.record_trace) {
    const std::int64_t recorded = std::max(0, spec.rounds - spec.burn_in);
    bytes =
        saturating_add(bytes, saturating_mul(saturating_mul(spec.chains, kDouble * d), recorded));
  }
  const std::int64_t blocks = (static_cast<std::int64_t>(spec.chains) + kLanes - 1) / kLanes;
  const std::int64_t threads =
      std::clamp<std::int64_t>(spec.threads > 0 ? spec.threads : omp_get_max_threads(), 1,
                               std::max<std::int64_t>(blocks, 1));
  const std::int64_t per_thread =
      saturating_mul(kDouble * kLanes, draws_per_client_round(problem, spec.step.local_steps));
  return saturating_add(bytes, saturating_mul(threads, per_thread));
}

SimulationResult simulate(const theory::Problem& problem, const SimulationSpec& spec,
                          const Progress& progress) {
  validate(problem, spec);
  const auto start = std::chrono::steady_clock::now();
  SamplerOptions options;
  options.algorithm = spec.algorithm;
  options.step = spec.step;
  options.seed = spec.seed;
  options.coupling = spec.coupling;
  options.round = spec.round;
  options.linearised_twin = spec.linearised_twin;
  const Vector initial =
      spec.initial_state.size() == 0 ? Vector::Zero(problem.dim()) : spec.initial_state;
  ChainEnsemble ensemble(problem, options, initial, spec.chains);

  // Rounds burn_in … rounds − 1 (0-based) are recorded: the state after round t + 1.
  const int d = problem.dim();
  const int recorded = spec.rounds - spec.burn_in;
  StationaryMomentsAccumulator accumulator(d, spec.chains, recorded, spec.batch_rounds);
  // With the twin, the state is (x, y): x feeds `accumulator` exactly as without it, x − y the
  // second one.                                                                  THEORY (L3)
  std::optional<StationaryMomentsAccumulator> difference;
  if (spec.linearised_twin) difference.emplace(d, spec.chains, recorded, spec.batch_rounds);
  SimulationResult result;
  ensemble.advance_recording(spec.rounds, spec.threads, [&](int round, const Matrix& state) {
    if (round > spec.burn_in) {
      if (difference) {
        const Matrix x = state.topRows(d);
        accumulator.add(x);
        difference->add(x - state.bottomRows(d));
        if (spec.record_trace) result.trace.push_back(x);
      } else {
        accumulator.add(state);
        if (spec.record_trace) result.trace.push_back(state);
      }
    }
    if (progress) progress(round, spec.rounds);
  });
  const Divergence& divergence = ensemble.divergence();
  result.rounds_done = ensemble.rounds_done();
  result.chain_steps = ensemble.chain_steps();
  result.final_state = ensemble.state().topRows(d);
  if (divergence.diverged) {
    // No statistics from a diverged run: they would be NaN or meaningless.
    result.diverged = true;
    result.divergence = divergence.describe();
    result.divergence_round = divergence.round;
    result.divergence_chain = divergence.chain;
  } else {
    result.moments = accumulator.result();
    if (difference) result.twin_difference = difference->result();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fedverify::estimators
