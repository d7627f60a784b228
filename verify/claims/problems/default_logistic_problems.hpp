// The embedded default logistic-regression problems of the bias claims (THEORY §6): small
// (d = 3, N = 10, 20 samples per client) so that simulations resolve a bias of order γ, and a
// pure function of fixed generator seeds (theory/problems/logistic_data.hpp), so every run replays.
#pragma once

#include <memory>
#include <vector>

#include "theory/problems/logistic_data.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims {

struct LogisticDefaults {
  NamedProblem heterogeneous;  // feature shift and label skew: b_h ≠ 0 and b_s ≠ 0
  NamedProblem homogeneous;    // every client holds the same data: ∇f_c(x*) = 0, so b_h = 0
  NamedProblem large_batch;    // `heterogeneous` with batch size B = 64: C̄ ∝ 1/B, b_s ∝ 1/B
  // `heterogeneous`'s generator with N = 4 clients, and the same four clients each twice
  // (N = 8): duplicating every client keeps f, x*, 𝐇, C̄, ∇³f and b_h, so b_s ∝ 1/N halves.
  NamedProblem small;
  NamedProblem small_doubled;
  theory::LogisticGeneratorOptions generator;  // of `heterogeneous` (seeds for results.json)
  int large_batch_size = 0;
};

const LogisticDefaults& default_logistic_problems();

// `p` with minibatch size `batch` (the same clients and λ).
std::shared_ptr<const theory::Problem> with_batch(const theory::LogisticProblem& p, int batch);

// `p` with every client twice (N → 2N, clients 0…N−1 then 0…N−1 again; the same λ and B):
// f, x*, 𝐇, C̄, ∇³f and b_h are unchanged and b_s ∝ 1/N halves (THEORY (F3)).
std::shared_ptr<const theory::Problem> every_client_twice(const theory::LogisticProblem& p);

// Casts a logistic NamedProblem (throws std::logic_error otherwise).
const theory::LogisticProblem& as_logistic(const NamedProblem& p);

}  // namespace fedverify::claims
