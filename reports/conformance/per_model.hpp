// Per-model mode of `fedverify conformance --per-model` (issue 28 item 1;
// docs/DESIGN-EXTENSIONS.md, "Conformance"): the implementation trains one model per run message,
// as FL frameworks do, instead of K chains side by side. Chain k of a check is then a session of
// its own (K = 1, ConformanceRun::first_chain = k, its noise chain k's: the same numbers as the
// batched session's column k), the chains are handed in turn to the implementation's workers (child
// processes kept alive from one run message to the next, side by side), and the rounds are recorded
// once every chain has run, as the batched session records them (d × K per round, chain k in column
// k).
#pragma once

#include <functional>
#include <vector>

#include "reports/conformance/localise.hpp"
#include "reports/conformance/oracle.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

// The command line's stationary chains with --per-model (absent --chains): each chain is a
// session of its own through a framework's per-step overhead, so fewer than the batched 256 — a
// PyTorch trainer (verify/conformance/torch_trainer.py) takes 57 s for a whole check with client
// sampling at 64 chains on 2 cores, and 3.5 min at 256 (AMD EPYC Zen 5).
inline constexpr int kPerModelChains = 64;

// Runs the chains of `batched` (its chains, rounds, x0 d × K, seed, …) one session each on
// `workers` workers of `implementation` (0: one per hardware thread; an implementation without
// workers, e.g. a Python callable, runs them one after another in this thread); record(t, d × K)
// for t = 1 … T afterwards, unless a chain diverged: returns the earliest round any chain diverged
// in (a diverged chain does not stop the others, so that the outcome does not depend on which
// worker ran what), 0 otherwise. `trace`: the gradient requests of chains < traced_chains, in
// chain order. Rethrows the first error of a worker (InputError naming the source).
int run_per_model(const theory::QuadraticProblem& problem, int workers,
                  const ConformanceRun& batched, const Implementation& implementation,
                  const std::function<void(int, const Matrix&)>& record,
                  std::vector<TracedGradient>* trace, int traced_chains);

}  // namespace fedverify::reports
