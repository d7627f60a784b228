// The federated trainer of the optimiser study (issue 14 item 4): the generic FedOpt round
// (THEORY O0) on a MultinomialProblem, with the protocol of the thesis's chapter 2 (O6) as its
// defaults: S of N clients sampled per round without replacement, K local steps on minibatches
// of B samples, the client's optimiser (its state reset every round), FedProx (O3) or Scaffold
// (S0), the pseudo-gradient Δ_t = (1/S) Σ_{c∈S_t} (x_t − x_c), then the server's optimiser on Δ_t
// or FedExP's extrapolated step (O4). The update rules are the ones of the chain engine
// (estimators/samplers/optimisers/), applied to plain vectors (columns = 1), and so is Scaffold's
// correction and variate update (StandardScaffold, estimators/samplers/algorithms/scaffold.hpp).
//
// Randomness (theory/base/rng.hpp): the clients of round t come from Stream(seed,
// client_sampling, 0, 0, t) (a partial Fisher–Yates draw of S of N), the minibatch rows of client
// c in round t from Stream(seed, gradient_noise, 0, c, t) (K·B uniform draws with replacement
// from the client's rows, step by step). So a run is a pure function of (problem, config, seed),
// and two configurations run at the same seed see the same clients and the same minibatch rows
// (common random numbers: their paired difference is free of that noise). Runs are sequential
// inside; train_many parallelises over independent runs only, so results are bit-identical
// whatever the number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "estimators/samplers/optimisers/update_rule.hpp"
#include "theory/problems/multinomial_problem.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::estimators {

// One configuration of Table 2.2 with its steps.
struct FederatedConfig {
  // Server: any rule of update_rule.hpp (role server) or "fedexp" (O4, its key eps).
  theory::OptimiserSpec server = theory::default_server();
  double server_lr = 1.0;  // the server rule's step (its spec's lr key is not read; FedExP: unused)
  // Client: a rule (role client) or "fedprox" (its key mu); scaffold overrides it with Scaffold's
  // corrected SGD steps.
  theory::OptimiserSpec client = theory::default_client();
  bool scaffold = false;
  double client_lr = 0.01;  // γ of SGD/FedProx/Scaffold, or the client rule's base step
  // Test hooks (planted perturbations): when set, used instead of the rule built from the spec
  // (server_rule also replaces FedExP's step).
  std::shared_ptr<const UpdateRule> server_rule;
  std::shared_ptr<const UpdateRule> client_rule;
};

struct TrainerOptions {
  int sampled = 20;      // S (≤ N)
  int local_steps = 20;  // K
  int rounds = 30;       // T
  std::uint64_t seed = 1;
  // The run is declared diverged when a coordinate is not finite or ‖x‖ exceeds this.
  double divergence_norm = 1e100;
};

struct TrainResult {
  // The iterate after the last round; for FedExP the average of the last two iterates, as the
  // FedExP paper reports (its iterates oscillate, THEORY O4).
  Vector x;
  bool diverged = false;  // x left the ball of radius divergence_norm; x is then the start (0)
  int rounds = 0;         // rounds run
};

// Trains from x = 0. Throws InputError for S outside [1, N], K < 1, T < 1, a step ≤ 0, or a
// spec without a rule (naming the flag).
TrainResult train_federated(const theory::MultinomialProblem& problem,
                            const FederatedConfig& config, const TrainerOptions& options);

struct TrainJob {
  const theory::MultinomialProblem* problem = nullptr;
  FederatedConfig config;
  TrainerOptions options;
};
// Every job (OpenMP over jobs, dynamic schedule; `threads` 0 = all), results in job order. An
// exception of a job is rethrown after the loop (the lowest job index wins).
std::vector<TrainResult> train_many(const std::vector<TrainJob>& jobs, int threads = 0);

}  // namespace fedverify::estimators
