#include "estimators/simulation/simulate.hpp"

#include <fmt/format.h>

#include <chrono>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

namespace {

void validate(const theory::Problem& problem, const SimulationSpec& spec) {
  if (spec.chains < 1) {
    throw InputError(fmt::format("--chains: must be >= 1, got {}", spec.chains));
  }
  if (spec.burn_in < 0) {
    throw InputError(fmt::format("--burn-in: must be >= 0, got {}", spec.burn_in));
  }
  if (spec.rounds <= spec.burn_in) {
    throw InputError(
        fmt::format("--rounds: must exceed --burn-in ({}), got {}", spec.burn_in, spec.rounds));
  }
  if (spec.threads < 0) {
    throw InputError(fmt::format("--threads: must be >= 0, got {}", spec.threads));
  }
  if (spec.batch_rounds < 0 || spec.batch_rounds > spec.rounds - spec.burn_in) {
    throw InputError(fmt::format("--batch-rounds: must lie in [0, rounds - burn-in = {}], got {}",
                                 spec.rounds - spec.burn_in, spec.batch_rounds));
  }
  theory::validate(spec.algorithm, spec.step);
  // The statistics must be defined: split-R̂ needs two halves of ≥ 2 rounds, the batch-means
  // MCSE (and so the ESS) at least 2 batch means; otherwise they would be 0/0.
  const int recorded = spec.rounds - spec.burn_in;
  if (recorded < 4) {
    throw InputError(
        fmt::format("--rounds: at least 4 recorded rounds (rounds - burn-in) are needed for "
                    "split-R-hat, got {}",
                    recorded));
  }
  const int batch = spec.batch_rounds > 0 ? spec.batch_rounds : default_batch_rounds(recorded);
  const std::int64_t batch_means = static_cast<std::int64_t>(spec.chains) * (recorded / batch);
  if (batch_means < 2) {
    throw InputError(fmt::format(
        "--batch-rounds: {} chain(s) with batches of {} rounds give {} batch mean; the MCSE needs "
        "at least 2 (more chains or shorter batches)",
        spec.chains, batch, batch_means));
  }
  if (spec.initial_state.size() != 0 && spec.initial_state.size() != problem.dim()) {
    throw InputError(fmt::format("initial_state: expected {} entries, got {}", problem.dim(),
                                 spec.initial_state.size()));
  }
}

}  // namespace

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
  const Vector initial =
      spec.initial_state.size() == 0 ? Vector::Zero(problem.dim()) : spec.initial_state;
  ChainEnsemble ensemble(problem, options, initial, spec.chains);

  // Rounds burn_in … rounds − 1 (0-based) are recorded: the state after round t + 1.
  StationaryMomentsAccumulator accumulator(problem.dim(), spec.chains, spec.rounds - spec.burn_in,
                                           spec.batch_rounds);
  SimulationResult result;
  ensemble.advance_recording(spec.rounds, spec.threads, [&](int round, const Matrix& state) {
    if (round > spec.burn_in) {
      accumulator.add(state);
      if (spec.record_trace) result.trace.push_back(state);
    }
    if (progress) progress(round, spec.rounds);
  });
  const Divergence& divergence = ensemble.divergence();
  result.rounds_done = ensemble.rounds_done();
  result.chain_steps = ensemble.chain_steps();
  result.final_state = ensemble.state();
  if (divergence.diverged) {
    // No statistics from a diverged run: they would be NaN or meaningless.
    result.diverged = true;
    result.divergence = divergence.describe();
    result.divergence_round = divergence.round;
    result.divergence_chain = divergence.chain;
  } else {
    result.moments = accumulator.result();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fedverify::estimators
