#include "estimators/simulation/simulate_game.hpp"

#include <fmt/format.h>

#include <chrono>

#include "estimators/samplers/games/fedgda.hpp"
#include "estimators/samplers/games/fedsgda.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::estimators {
namespace {

namespace limits = theory::limits;

constexpr theory::Algorithm kFedgda{"fedgda"};
constexpr theory::Algorithm kFedsgda{"fedsgda"};

void validate(const theory::GameProblem& problem, const GameSimulationSpec& spec) {
  validate_run_shape(spec.chains, spec.rounds, spec.burn_in, spec.threads, spec.batch_rounds);
  theory::validate(spec.step);
  limits::require_range("--local-steps", spec.step.local_steps, 1, limits::kMaxLocalStepsSimulate);
  if (spec.algorithm == kFedgda && problem.linear_iv() != nullptr) {
    throw InputError(
        "--algo: fedgda on a linear-iv game uses full-batch gradients, so its chain is "
        "deterministic; use predict for its limit, or --algo fedsgda --batch-size B to simulate "
        "minibatches");
  }
  if (spec.algorithm == kFedsgda) {
    if (problem.linear_iv() == nullptr) {
      throw InputError(
          "--algo: fedsgda samples minibatches of a linear-iv game's data; a quadratic-game has "
          "none (its stochasticity is noise_cov: use --algo fedgda)");
    }
    limits::require_range("--batch-size", spec.batch_size, 1, limits::kMaxBatchSize);
    limits::require_range(
        "--batch-size", limits::saturating_mul(spec.step.local_steps, spec.batch_size), 1,
        limits::kMaxDrawsPerClientRound, "R·B: minibatch indices drawn per client and round");
  } else if (spec.algorithm != kFedgda) {
    throw InputError(fmt::format("--algo: {} is not a game algorithm (fedgda, fedsgda)",
                                 theory::to_string(spec.algorithm)));
  }
  // States (current, total, a copy per thread) and the accumulator: ≈ 8·K·(8d + d(d+1)/2) bytes.
  const std::int64_t d = problem.game().dim();
  const std::int64_t per_chain = limits::saturating_add(8 * d, d * (d + 1) / 2);
  limits::require_memory("--chains", fmt::format("{} chains of dimension {}", spec.chains, d),
                         limits::saturating_mul(limits::saturating_mul(spec.chains, 8), per_chain),
                         spec.memory_budget);
}

}  // namespace

SimulationResult simulate_game(const theory::GameProblem& problem, const GameSimulationSpec& spec,
                               const Progress& progress) {
  validate(problem, spec);
  const auto start = std::chrono::steady_clock::now();
  const int d = problem.game().dim();
  Matrix state = Matrix::Zero(d, spec.chains);
  StationaryMomentsAccumulator accumulator(d, spec.chains, spec.rounds - spec.burn_in,
                                           spec.batch_rounds);
  SimulationResult result;
  const auto record = [&](int round, const Matrix& s) {
    if (round > spec.burn_in) accumulator.add(s);
    result.rounds_done = round;
    if (progress) progress(round, spec.rounds);
  };
  int diverged_after = 0;
  if (spec.algorithm == kFedsgda) {
    diverged_after =
        run_fedsgda({*problem.linear_iv(), spec.step, spec.batch_size, spec.seed, spec.threads},
                    state, spec.rounds, record);
  } else {
    try {
      run_fedgda({problem.game(), spec.step, spec.seed, spec.threads}, state, spec.rounds, record);
    } catch (const InputError&) {  // the spec is valid: the only error left is divergence
      diverged_after = result.rounds_done + 1;
    }
  }
  result.final_state = state;
  if (diverged_after > 0) {
    result.diverged = true;
    result.divergence_round = diverged_after;
    result.divergence = fmt::format(
        "a chain left double range after round {} (no stationary law at alpha = ({}, {}), R = {})",
        diverged_after, spec.step.alpha_theta, spec.step.alpha_tau, spec.step.local_steps);
  } else {
    result.moments = accumulator.result();
  }
  const std::int64_t per_round = limits::saturating_mul(
      limits::saturating_mul(spec.chains, problem.game().num_clients()), spec.step.local_steps);
  result.chain_steps = limits::saturating_mul(per_round, result.rounds_done);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fedverify::estimators
