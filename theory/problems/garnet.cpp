#include "theory/problems/garnet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;

// The `chain` slot of this file's problem_generator streams (logistic_data 0–3, multinomial_data
// 10–13 use others); the `client` slot holds the attempt (support) or the client.
enum Role : std::uint64_t {
  kSupport = 40,        // next-state sets of every (s, a); slot = attempt
  kProbabilities = 41,  // base probabilities on the support
  kPolicy = 42,
  kReward = 43,
  kFeatures = 44,
  kClientKernel = 45,  // U_c(s, a, ·); slot = client
  kClientReward = 46,  // U_c(s); slot = client
};

constexpr int kMaxSupportAttempts = 1000;

Stream stream(const GarnetOptions& o, Role role, int slot = 0) {
  return Stream(o.seed, Purpose::problem_generator, role, static_cast<std::uint64_t>(slot));
}

void require_nonnegative(double value, const char* field) {
  if (!std::isfinite(value) || value < 0.0) {
    throw InputError(
        fmt::format("generator.{}: must be a finite number >= 0, got {}", field, value));
  }
}

// support[s][a]: `branching` distinct next states, by a partial Fisher–Yates shuffle.
using Support = std::vector<std::vector<std::vector<int>>>;

Support draw_support(const GarnetOptions& o, int attempt) {
  Stream s = stream(o, kSupport, attempt);
  Support support(static_cast<std::size_t>(o.states));
  std::vector<int> order(static_cast<std::size_t>(o.states));
  for (auto& per_action : support) {
    per_action.resize(static_cast<std::size_t>(o.actions));
    for (auto& next : per_action) {
      std::iota(order.begin(), order.end(), 0);
      for (int k = 0; k < o.branching; ++k) {
        const auto j = static_cast<std::size_t>(k) +
                       static_cast<std::size_t>(s.below(static_cast<std::uint64_t>(o.states - k)));
        std::swap(order[static_cast<std::size_t>(k)], order[j]);
      }
      next.assign(order.begin(), order.begin() + o.branching);
    }
  }
  return support;
}

// Sorted successor lists of the policy chain (every action has positive probability).
std::vector<std::vector<int>> successors_of(const Support& support) {
  std::vector<std::vector<int>> out;
  for (const auto& per_action : support) {
    std::vector<int> next;
    for (const auto& states : per_action) next.insert(next.end(), states.begin(), states.end());
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    out.push_back(std::move(next));
  }
  return out;
}

// Strongly connected: every state reachable from state 0 and state 0 reachable from every state.
bool irreducible(const std::vector<std::vector<int>>& successors) {
  const std::size_t n = successors.size();
  std::vector<std::vector<int>> predecessors(n);
  for (std::size_t s = 0; s < n; ++s) {
    for (const int t : successors[s])
      predecessors[static_cast<std::size_t>(t)].push_back(static_cast<int>(s));
  }
  for (const std::vector<std::vector<int>>* graph : {&successors, &std::as_const(predecessors)}) {
    std::vector<char> seen(n, 0);
    std::vector<int> todo{0};
    seen[0] = 1;
    std::size_t reached = 1;
    while (!todo.empty()) {
      const int s = todo.back();
      todo.pop_back();
      for (const int t : (*graph)[static_cast<std::size_t>(s)]) {
        if (!seen[static_cast<std::size_t>(t)]) {
          seen[static_cast<std::size_t>(t)] = 1;
          ++reached;
          todo.push_back(t);
        }
      }
    }
    if (reached != n) return false;
  }
  return true;
}

}  // namespace

std::string to_string(GarnetFeatures f) {
  return f == GarnetFeatures::gaussian ? "gaussian" : "uniform-l1";
}

GarnetFeatures parse_garnet_features(const std::string& name) {
  if (name == "gaussian") return GarnetFeatures::gaussian;
  if (name == "uniform-l1") return GarnetFeatures::uniform_l1;
  throw InputError(
      fmt::format("generator.feature_map: expected gaussian or uniform-l1, got \"{}\"", name));
}

void validate(const GarnetOptions& o) {
  if (o.states < 2)
    throw InputError(fmt::format("generator.states: must be >= 2, got {}", o.states));
  if (o.states > 100000) {
    throw InputError(fmt::format("generator.states: must be <= 100000, got {}", o.states));
  }
  if (o.actions < 1 || o.actions > 1000) {
    throw InputError(fmt::format("generator.actions: must lie in [1, 1000], got {}", o.actions));
  }
  if (o.branching < 1 || o.branching > o.states) {
    throw InputError(fmt::format("generator.branching: must lie in [1, states = {}], got {}",
                                 o.states, o.branching));
  }
  if (o.features < 1 || o.features > o.states) {
    throw InputError(fmt::format("generator.features: must lie in [1, states = {}], got {}",
                                 o.states, o.features));
  }
  if (!(o.discount >= 0.0 && o.discount < 1.0)) {
    throw InputError(fmt::format("generator.discount: must lie in [0, 1), got {}", o.discount));
  }
  if (o.clients < 1 || o.clients > 100000) {
    throw InputError(fmt::format("generator.clients: must lie in [1, 100000], got {}", o.clients));
  }
  require_nonnegative(o.kernel_heterogeneity, "kernel_heterogeneity");
  require_nonnegative(o.reward_heterogeneity, "reward_heterogeneity");
  if (o.batch_size < 1) {
    throw InputError(fmt::format("generator.batch_size: must be >= 1, got {}", o.batch_size));
  }
}

Vector stationary_distribution(const Matrix& kernel) {
  // GTH: censor the chain on {0, …, k − 1} for k = n − 1, …, 1 (the row sums of the censored
  // chain's off-diagonal part replace 1 − P(k, k), avoiding the cancellation), then recover μ
  // forwards. μ(k) ∝ Σ_{i<k} μ(i) P̃(i, k).
  const Eigen::Index n = kernel.rows();
  Matrix p = kernel;
  for (Eigen::Index k = n - 1; k > 0; --k) {
    const double out = p.row(k).head(k).sum();
    if (!(out > 0.0)) {
      throw InputError(
          fmt::format("kernel: state {} cannot reach the states before it (the chain "
                      "is reducible)",
                      k));
    }
    p.col(k).head(k) /= out;
    p.topLeftCorner(k, k) += p.col(k).head(k) * p.row(k).head(k);
  }
  Vector mu(n);
  mu(0) = 1.0;
  for (Eigen::Index k = 1; k < n; ++k) mu(k) = mu.head(k).dot(p.col(k).head(k));
  return mu / mu.sum();
}

GarnetMdp generate_garnet(const GarnetOptions& o) {
  validate(o);
  const int n = o.states, na = o.actions, d = o.features;
  GarnetMdp mdp;

  Support support;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxSupportAttempts) {
      throw InputError(fmt::format(
          "generator: no irreducible Garnet chain in {} draws of the support (states {}, "
          "actions {}, branching {}): raise actions or branching",
          kMaxSupportAttempts, n, na, o.branching));
    }
    support = draw_support(o, attempt);
    mdp.successors = successors_of(support);
    if (irreducible(mdp.successors)) {
      mdp.support_attempts = attempt + 1;
      break;
    }
  }

  // Base probabilities on the support: normalised Exp(1) variates = Dirichlet(1, …, 1).
  std::vector<std::vector<Vector>> base(static_cast<std::size_t>(n));
  Stream ps = stream(o, kProbabilities);
  for (int s = 0; s < n; ++s) {
    for (int a = 0; a < na; ++a) {
      Vector w(o.branching);
      for (int k = 0; k < o.branching; ++k) w(k) = -std::log(ps.uniform());
      base[static_cast<std::size_t>(s)].push_back(w / w.sum());
    }
  }
  mdp.policy.resize(n, na);
  Stream pol = stream(o, kPolicy);
  for (int s = 0; s < n; ++s) {
    for (int a = 0; a < na; ++a) mdp.policy(s, a) = pol.uniform();
    mdp.policy.row(s) /= mdp.policy.row(s).sum();
  }
  Vector reward(n);
  Stream rs = stream(o, kReward);
  for (int s = 0; s < n; ++s) reward(s) = rs.uniform();
  mdp.features.resize(n, d);
  Stream fs = stream(o, kFeatures);
  for (int s = 0; s < n; ++s) {
    for (int i = 0; i < d; ++i) {
      mdp.features(s, i) = o.feature_map == GarnetFeatures::gaussian ? fs.normal() : fs.uniform();
    }
    const double scale = o.feature_map == GarnetFeatures::gaussian ? mdp.features.row(s).norm()
                                                                   : mdp.features.row(s).sum();
    mdp.features.row(s) /= scale;  // > 0 with probability one (a Gaussian row of zeros: never)
  }

  for (int c = 0; c < o.clients; ++c) {
    GarnetClientChain chain;
    chain.kernel = Matrix::Zero(n, n);
    Stream ks = stream(o, kClientKernel, c);
    for (int s = 0; s < n; ++s) {
      for (int a = 0; a < na; ++a) {
        Vector w = base[static_cast<std::size_t>(s)][static_cast<std::size_t>(a)];
        for (int k = 0; k < o.branching; ++k) w(k) += o.kernel_heterogeneity * ks.uniform();
        w /= w.sum();
        const auto& next = support[static_cast<std::size_t>(s)][static_cast<std::size_t>(a)];
        for (int k = 0; k < o.branching; ++k) {
          chain.kernel(s, next[static_cast<std::size_t>(k)]) += mdp.policy(s, a) * w(k);
        }
      }
    }
    chain.reward = reward;
    Stream cr = stream(o, kClientReward, c);
    for (int s = 0; s < n; ++s) chain.reward(s) += o.reward_heterogeneity * cr.uniform();
    chain.stationary = stationary_distribution(chain.kernel);
    mdp.clients.push_back(std::move(chain));
  }
  return mdp;
}

nlohmann::json garnet_td_json(const GarnetOptions& o) {
  const GarnetMdp mdp = generate_garnet(o);
  const int d = o.features;
  const auto row_vector = [](const auto& v) {
    return std::vector<double>(v.data(), v.data() + v.size());
  };
  nlohmann::json clients = nlohmann::json::array();
  for (const GarnetClientChain& chain : mdp.clients) {
    nlohmann::json samples = nlohmann::json::array();
    for (int s = 0; s < o.states; ++s) {
      const Vector phi = mdp.features.row(s).transpose();
      for (const int t : mdp.successors[static_cast<std::size_t>(s)]) {
        // A = φ(s)(φ(s) − ρφ(s'))ᵀ, b = r_c(s)φ(s), weight μ_c(s) P_c(s, s')   (THEORY (L0)).
        const Vector diff = phi - o.discount * mdp.features.row(t).transpose();
        nlohmann::json rows = nlohmann::json::array();
        for (int i = 0; i < d; ++i) rows.push_back(row_vector(Vector(phi(i) * diff)));
        samples.push_back({{"weight", chain.stationary(s) * chain.kernel(s, t)},
                           {"A", std::move(rows)},
                           {"b", row_vector(Vector(chain.reward(s) * phi))}});
      }
    }
    clients.push_back({{"samples", std::move(samples)}});
  }
  nlohmann::json generator = {{"name", "garnet-td"},
                              {"states", o.states},
                              {"actions", o.actions},
                              {"branching", o.branching},
                              {"features", o.features},
                              {"discount", o.discount},
                              {"clients", o.clients},
                              {"kernel_heterogeneity", o.kernel_heterogeneity},
                              {"reward_heterogeneity", o.reward_heterogeneity},
                              {"feature_map", to_string(o.feature_map)},
                              {"batch_size", o.batch_size},
                              {"seed", o.seed}};
  return {{"kind", "linear-sa"},
          {"batch_size", o.batch_size},
          {"generator", std::move(generator)},
          {"clients", std::move(clients)}};
}

GarnetOptions garnet_td_preset_options() {
  GarnetOptions o;  // 30 states, 2 actions, branching 2, 8 features, ρ = 0.95, N = 10, B = 1
  o.kernel_heterogeneity = 10.0;  // near-independent client kernels on the shared support
  o.reward_heterogeneity = 1.0;
  o.seed = 20261127;
  return o;
}

nlohmann::json garnet_td_preset() { return garnet_td_json(garnet_td_preset_options()); }

}  // namespace fedverify::theory
