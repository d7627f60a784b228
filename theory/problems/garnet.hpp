// Federated TD(0) with linear features on random MDPs (Garnet), emitted as a `linear-sa` problem
// file (docs/problem-formats-linear-sa.md; THEORY (L0); docs/generators-linear-sa.md).
//
// The MDP (Archibald, McKinnon & Thomas 1995; Bhatnagar et al. 2009; the federated variant of
// Mangold et al. 2024, "SCAFFLSA", code pmangold/scafflsa, GarnetEnv.py):
//   support    each (s, a) moves to `branching` distinct next states drawn uniformly without
//              replacement; the support is shared by all clients and redrawn (a new stream
//              address per attempt) until the policy chain is irreducible;
//   kernel     base probabilities on the support ~ Dirichlet(1, …, 1) (normalised exponentials);
//              client c: P_c(s, a, ·) ∝ P(s, a, ·) + kernel_heterogeneity · U_c(s, a, ·) on the
//              support, U_c iid uniform(0, 1) (SCAFFLSA's perturbation, on a random base);
//   policy     π(a | s) ∝ uniform(0, 1) variates, one fixed policy shared by the clients (every
//              action has positive probability);
//   rewards    r(s) ~ uniform(0, 1); client c: r_c(s) = r(s) + reward_heterogeneity · U_c(s);
//   features   gaussian: φ(s) = g_s / ‖g_s‖₂, g_s ~ N(0, I_d) (unit-norm rows, so ‖A‖ ≤ 1 + ρ and
//              ΦᵀΦ is well conditioned); uniform-l1: entries uniform(0, 1) divided by their sum
//              (SCAFFLSA's map: positive features, ΦᵀΦ close to rank one, so Ā is ill conditioned).
// Client c's policy chain is P_c(s, s') = Σ_a π(a | s) P_c(s, a, s'), its stationary law μ_c
// (unique since the chain is irreducible; computed by the subtraction-free GTH elimination).
// The TD(0) law of (A, b) (THEORY (L0)): Z = (s, s'), s ~ μ_c, s' ~ P_c(s, ·), with
//   A(Z) = φ(s)(φ(s) − ρφ(s'))ᵀ,   b(Z) = r_c(s) φ(s),   weight μ_c(s) P_c(s, s'),
// one sample per pair (s, s') of the shared support (actions summed out), so that Ā_c =
// Φᵀ D_c (I − ρP_c) Φ, D_c = diag(μ_c): TD's mean field, whose symmetric part is positive definite
// when Φ has full column rank (Tsitsiklis & Van Roy 1997, Lemma 3), so Re λ(Ā_c) > 0.
// kernel_heterogeneity = reward_heterogeneity = 0 gives identical clients, bit for bit.
//
// Randomness: estimators::Stream(seed, Purpose::problem_generator, role, slot), roles 40–46 (apart
// from the other generators'), so each part is a pure function of (seed, role, slot): same seed
// ⇒ the same JSON bytes, and client c's perturbation does not depend on the number of clients.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

enum class GarnetFeatures { gaussian, uniform_l1 };

struct GarnetOptions {
  int states = 30;                    // n_S ≥ 2
  int actions = 2;                    // n_A ≥ 1
  int branching = 2;                  // b, 1 ≤ b ≤ n_S: next states of each (s, a)
  int features = 8;                   // d, 1 ≤ d ≤ n_S
  double discount = 0.95;             // ρ ∈ [0, 1)
  int clients = 10;                   // N ≥ 1
  double kernel_heterogeneity = 0.0;  // ≥ 0: 0 = the same kernel on every client
  double reward_heterogeneity = 0.0;  // ≥ 0: 0 = the same rewards on every client
  GarnetFeatures feature_map = GarnetFeatures::gaussian;
  int batch_size = 1;  // B ≥ 1, written to the problem file
  std::uint64_t seed = 1;
};

// Throws InputError naming the field ("generator.branching: …").
void validate(const GarnetOptions& options);

struct GarnetClientChain {
  Matrix kernel;      // n_S × n_S, P_c(s, s') = Σ_a π(a | s) P_c(s, a, s')
  Vector reward;      // n_S, r_c(s)
  Vector stationary;  // n_S, μ_c (μ_cᵀ P_c = μ_cᵀ, Σ μ_c = 1, μ_c > 0)
};

struct GarnetMdp {
  Matrix features;                           // n_S × d, row s = φ(s)ᵀ
  Matrix policy;                             // n_S × n_A, π(a | s)
  std::vector<std::vector<int>> successors;  // successors[s]: the states s' with P(s, s') > 0
  std::vector<GarnetClientChain> clients;
  int support_attempts = 1;  // draws of the support until the chain was irreducible
};

// Throws InputError "generator: …" if no irreducible support is found in 1000 attempts (e.g.
// branching = actions = 1 on many states, where an irreducible chain is a single cycle).
GarnetMdp generate_garnet(const GarnetOptions& options);

// The stationary law of an irreducible stochastic matrix by Grassmann–Taksar–Heyman elimination
// (no subtractions, entrywise accurate; Grassmann, Taksar & Heyman 1985). Needs an irreducible
// chain; throws InputError when an elimination pivot vanishes (which implies reducibility).
Vector stationary_distribution(const Matrix& kernel);

// The problem file: {"kind": "linear-sa", "batch_size": B, "generator": {...}, "clients":
// [{"samples": [{"weight", "A", "b"}, ...]}, ...]}; the generator record holds "name":
// "garnet-td", every option above (feature_map as "gaussian" or "uniform-l1") and the seed.
nlohmann::json garnet_td_json(const GarnetOptions& options);

// The default catalogue's federated TD problem (issue 26 item 4): SCAFFLSA's Garnet sizes
// (30 states, 2 actions, branching 2, 8 features, ρ = 0.95), N = 10 clients, kernel
// heterogeneity 10 (SCAFFLSA's high setting), reward heterogeneity 1, B = 1, seed 20261127.
GarnetOptions garnet_td_preset_options();
nlohmann::json garnet_td_preset();

std::string to_string(GarnetFeatures features);
GarnetFeatures parse_garnet_features(const std::string& name);  // InputError naming the field

}  // namespace fedverify::theory
