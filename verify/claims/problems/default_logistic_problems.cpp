#include "verify/claims/problems/default_logistic_problems.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

namespace fedverify::claims {
namespace {

// The heterogeneous base problem: d = 3 and N = 10 keep a chain-step cheap; 20 samples per
// client with feature shift 0.5 and label skew 0.3 make both ∇f_c(x*) and ∇²f_c(x*) differ
// across clients (b_h ≠ 0); λ = 0.1 bounds μ away from 0 (contraction per round ≥ γλH).
theory::LogisticGeneratorOptions heterogeneous_options() {
  theory::LogisticGeneratorOptions o;
  o.dim = 3;
  o.clients = 10;
  o.samples_per_client = 20;
  o.l2 = 0.1;
  o.batch_size = 1;
  o.feature_shift = 0.5;
  o.label_skew = 0.3;
  o.separation = 2.0;
  o.seed = 11;
  return o;
}

constexpr int kLargeBatch = 64;  // C̄ shrinks 64-fold: γ b_s falls below the MCSE of the claims

}  // namespace

std::shared_ptr<const theory::Problem> with_batch(const theory::LogisticProblem& p, int batch) {
  std::vector<theory::LogisticClient> clients;
  clients.reserve(static_cast<std::size_t>(p.num_clients()));
  for (int c = 0; c < p.num_clients(); ++c) clients.push_back(p.client(c));
  return std::make_shared<theory::LogisticProblem>(std::move(clients), p.l2(), batch);
}

std::shared_ptr<const theory::Problem> every_client_twice(const theory::LogisticProblem& p) {
  std::vector<theory::LogisticClient> twice;
  twice.reserve(2 * static_cast<std::size_t>(p.num_clients()));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < p.num_clients(); ++c) twice.push_back(p.client(c));
  }
  return std::make_shared<theory::LogisticProblem>(std::move(twice), p.l2(), p.batch_size());
}

const LogisticDefaults& default_logistic_problems() {
  static const LogisticDefaults defaults = [] {
    LogisticDefaults v;
    v.generator = heterogeneous_options();
    v.large_batch_size = kLargeBatch;
    const theory::LogisticProblem hetero = theory::generate_logistic(v.generator);
    v.heterogeneous = {"lr-hetero",
                       fmt::format("logistic d = 3, N = 10, 20 samples/client, feature shift 0.5, "
                                   "label skew 0.3, λ = 0.1, B = 1 (generator seed {})",
                                   v.generator.seed),
                       std::make_shared<theory::LogisticProblem>(hetero)};
    v.large_batch = {"lr-hetero-B64",
                     fmt::format("lr-hetero with minibatch size B = {}", kLargeBatch),
                     with_batch(hetero, kLargeBatch)};
    theory::LogisticGeneratorOptions four = v.generator;
    four.clients = 4;
    const theory::LogisticProblem small = theory::generate_logistic(four);
    v.small = {
        "lr-hetero4",
        fmt::format("lr-hetero's generator with N = 4 clients (generator seed {})", four.seed),
        std::make_shared<theory::LogisticProblem>(small)};
    v.small_doubled = {"lr-hetero4x2", "lr-hetero4 with every client twice (N = 8)",
                       every_client_twice(small)};
    // Homogeneous: one client's data (balanced labels, no shift), copied to all N clients, so
    // every f_c = f and ∇f_c(x*) = 0 exactly.
    theory::LogisticGeneratorOptions one = v.generator;
    one.clients = 1;
    one.feature_shift = 0.0;
    one.label_skew = 0.0;
    one.seed = 12;
    const theory::LogisticProblem single = theory::generate_logistic(one);
    std::vector<theory::LogisticClient> copies(static_cast<std::size_t>(v.generator.clients),
                                               single.client(0));
    v.homogeneous = {"lr-homog",
                     fmt::format("logistic d = 3, N = 10 identical clients (20 samples, balanced, "
                                 "generator seed {}), λ = 0.1, B = 1",
                                 one.seed),
                     std::make_shared<theory::LogisticProblem>(std::move(copies), one.l2, 1)};
    return v;
  }();
  return defaults;
}

const theory::LogisticProblem& as_logistic(const NamedProblem& p) {
  const auto* q = dynamic_cast<const theory::LogisticProblem*>(p.problem.get());
  if (q == nullptr) throw std::logic_error(p.name + " is not a logistic problem");
  return *q;
}

}  // namespace fedverify::claims
