// `fedverify conformance`: checks a user's implementation of FedAvg, Scaffold or FedProx (any
// language) against fedverify's exact laws on a quadratic problem (docs/DESIGN-EXTENSIONS.md,
// "Conformance"). fedverify plays the stochastic-gradient oracle — ∇f_i(x) + L_i u with u from its
// own counter-addressed streams (seed, gradient_noise, chain k, client i, request j) — and the code
// under test plays the algorithm over a JSON-lines protocol (child_process.hpp): local steps,
// control variates, client sampling, aggregation, reporting every round's global iterates of K
// chains at once.
//
// Two runs, four tests (α split equally, Bonferroni):
//   one round  K₁ chains from x₀ = x* + 1 for one round: the mean (Hotelling) and covariance
//              (entrywise, MCSE of a Gaussian sample covariance √((P_ij² + P_iiP_jj)/K₁), the
//              threshold calibrated on the exact Wishart null at K₁: gaussian_covariance.hpp) of x₁
//              against the exact one-round law (the round map of theory/algorithms/: FedAvg's, or
//              FedOpt's with FedProx, client sampling or a server step η_g with momentum β,
//              its buffer at 0; Scaffold's first round from ξ = 0 is FedAvg's);
//   stationary K chains for T rounds from x*, the rounds after burn-in: the mean (Hotelling on
//              batch means) and covariance (entrywise with batch-means MCSE, Student's t with
//              the batch means' degrees of freedom) against
//              theory::exact_moments.
// A failing pattern is named (diagnose): which law differs, and what that points to.
// Trajectory mode (--trajectory, trajectory.hpp) replaces the four tests by one exact replay of
// every request and round on the same gradients.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "reports/conformance/child_process.hpp"
#include "reports/conformance/oracle.hpp"
#include "reports/conformance/trajectory.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

struct ConformanceSpec {
  std::string command;                                      // --exec
  theory::Algorithm algorithm = theory::Algorithm::fedavg;  // fedavg, scaffold or fedopt
  theory::RunSetting step;  // γ, H; fedopt: client fedprox, participating S, server sgd η_g/β
  int one_round_chains = 4000;
  int chains = 256;
  int rounds = 400;
  int burn_in = 100;
  std::uint64_t seed = 1;
  double alpha = 0.01;                              // of the four tests together
  double timeout_seconds = kDefaultMessageTimeout;  // --timeout: per message of the child process
  ProtocolPipes pipes = ProtocolPipes::stdio;       // --protocol-fds: fds
  // --per-model: the implementation runs one chain (one model) per run message, in `workers`
  // processes side by side (0: one per hardware thread), each serving run after run; every
  // number is the batched mode's (chain k's noise is chain k's whichever process runs it).
  bool per_model = false;
  int workers = 0;
  // --weight-decay λ: every local step is y ← y − γ(g + λy + …) (torch.optim.SGD(weight_decay=λ));
  // the laws are those of theory::with_weight_decay (THEORY C1).
  double weight_decay = 0;
  // --trajectory PRECISION: trajectory mode (trajectory.hpp) instead of the four statistical
  // tests: `chains` chains for `rounds` rounds replayed request by request (full participation).
  std::optional<Precision> trajectory;
  // Called with (rounds done, rounds) of the stationary run as it goes (the command line's
  // progress line, reports/report/progress.hpp); never changes a number.
  std::function<void(int, int)> progress;
};

// Whether conformance checks `algorithm` (fedavg, scaffold, fedopt): what --algo accepts.
bool conformance_checks(theory::Algorithm algorithm);

struct ConformanceCheck {
  std::string name;  // "one-round mean", …
  estimators::Decision decision;
  std::string detail;  // measured against predicted, one line
};

struct ConformanceResult {
  std::vector<ConformanceCheck> checks;
  bool passed = false;
  // When the stationary law differs: the neighbouring laws it fits instead (neighbours.hpp), in
  // words; empty otherwise.
  std::vector<std::string> neighbours;
  std::string diagnosis;  // one paragraph
};

// Throws InputError naming the flag for a bad spec (--algo other than fedavg, scaffold, fedopt;
// a fedopt setting other than client sgd/fedprox with server sgd) and naming --exec for a
// protocol error of the implementation (with what was expected).
ConformanceResult run_conformance(const theory::QuadraticProblem& problem,
                                  const ConformanceSpec& spec);
// The same with the implementation attached by the caller (spec.command unused): a Python
// callable (python/src/conformance.cpp), a test's in-process implementation. Errors of the
// implementation name implementation.source.
ConformanceResult run_conformance(const theory::QuadraticProblem& problem,
                                  const ConformanceSpec& spec,
                                  const Implementation& implementation);

nlohmann::json conformance_to_json(const ConformanceSpec& spec, const ConformanceResult& result);

}  // namespace fedverify::reports
