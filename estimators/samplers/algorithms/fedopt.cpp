// FedOpt (THEORY O0): S of the N clients sampled without replacement each round (O5), each runs
// H local steps of its client optimiser from x_t, the server treats the pseudo-gradient
// Δ_t = (1/S) Σ_{c∈S_t} (x_t − y_c) as a gradient.
//
// Clients: sgd (the kernel's fused local steps, as FedAvg's), fedprox (O3, the kernel's proximal
// steps), or any other rule of optimisers/ (O1; sgd with momentum too), applied to the kernel's
// stochastic gradients with its state reset at the start of every round (O0).
// Server: a rule of optimisers/ with Δ_t as its gradient (sgd with step η_g and heavy-ball or
// Nesterov momentum β, O2: m_{t+1} = β m_t + Δ_t, x_{t+1} = x_t − η_g m_{t+1}; Adam, …, O1), its
// state in the auxiliary states (its vectors, then its per-chain scalars in row 0 of one d × K
// state each), started from x_0 at round 0; or FedExP (O4, the paper's form: ε as given, not scaled
// by S or decayed as in the authors' code),
//   x_{t+1} = x_t − η_t Δ_t,   η_t = max(1, Σ_{c∈S_t} ‖Δ_c‖² / (2S(‖Δ_t‖² + ε))).
// With server sgd, η_g = 1, β = 0, client sgd and S = N the round is FedAvg's:
// x_{t+1} = (1/N) Σ_c y_c, bit for bit.
//
// Sampling: chain k draws its subset of round t from the stream (seed, client_sampling, k, 0, t)
// by a partial Fisher–Yates shuffle, so it does not depend on K, threads or blocks. Every client
// runs its local steps on every lane (its noise stream is (seed, gradient_noise, k, c, t) whether
// or not it is sampled) and only the sampled ones enter the lane's average: the cost of a round is
// that of N clients whatever S.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "estimators/samplers/optimisers/update_rule.hpp"
#include "estimators/samplers/round.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::estimators {
namespace {

// The client spec runs through the kernel's fused SGD steps (sgd without momentum).
bool plain_client_sgd(const theory::RunSetting& s) {
  return s.client.is("sgd") && s.client.value("momentum") == 0.0;
}

// A client rule as the kernel's LocalStep, on rule state in round scratch buffers.
class RuleStep final : public LocalStep {
 public:
  RuleStep(const UpdateRule& rule, int dim, int active, const RuleState& state)
      : rule_(rule), dim_(dim), active_(active), state_(state) {}
  void operator()(int step, const double* gradient, double* y) const override {
    if (step == 0) rule_.start(dim_, kLanes, y, state_);
    rule_.update(dim_, kLanes, active_, step + 1, y, gradient, state_);
  }

 private:
  const UpdateRule& rule_;
  int dim_, active_;
  const RuleState& state_;
};

class FedOptRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const int sampled = theory::participating_clients(b.step, b.clients);
    const std::size_t size = b.size();
    double* total = b.scratch.buffer(kTotal, size);  // Σ_{c∈S} y_c, per lane
    std::fill(total, total + size, 0.0);
    // weight[c·kLanes + lane] = 1 when client c is sampled in the lane's chain this round.
    double* weight = b.scratch.buffer(kWeight, static_cast<std::size_t>(b.clients) * kLanes);
    draw_subsets(b, sampled, weight);
    const bool fedexp = b.step.server.is("fedexp");
    std::array<double, kLanes> spread{};  // Σ_{c∈S} ‖x_t − y_c‖² per lane (FedExP)
    auto add = [&](int c, const double* yc) {
      const double* w = weight + static_cast<std::size_t>(c) * kLanes;
      if (fedexp) {
        for (int i = 0; i < b.dim; ++i) {
          for (int lane = 0; lane < kLanes; ++lane) {
            const double e = b.x[i * kLanes + lane] - yc[i * kLanes + lane];
            spread[lane] += (sampled == b.clients ? 1.0 : w[lane]) * e * e;
          }
        }
      }
      if (sampled == b.clients) {
        for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
        return;
      }
      for (int i = 0; i < b.dim; ++i) {
        for (int lane = 0; lane < kLanes; ++lane) {
          total[i * kLanes + lane] += w[lane] * yc[i * kLanes + lane];
        }
      }
    };
    run_clients(b, add);
    if (fedexp) return fedexp_step(b, sampled, total, spread);
    if (b.step.server.is("sgd") && theory::server_sgd(b.step) == theory::ServerSgd{}) {
      // x_{t+1} = x_t − (x_t − ȳ) = ȳ: FedAvg's average, bit for bit.              THEORY (F0)
      for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / sampled;
      return;
    }
    server_rule_step(b, sampled, total);
  }

  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& options,
                                               int /*clients*/) const override {
    const theory::OptimiserSpec& server = options.step.server;
    if (server.is("fedexp")) return {};
    const auto rule = make_update_rule(server, server.value("lr"));
    std::vector<AuxiliaryState> states;
    states.reserve(static_cast<std::size_t>(rule->vector_count() + rule->scalar_count()));
    for (int v = 0; v < rule->vector_count(); ++v) {
      states.push_back({"server " + server.name + " vector " + std::to_string(v), true});
    }
    for (int s = 0; s < rule->scalar_count(); ++s) {
      states.push_back({"server " + server.name + " scalar " + std::to_string(s), true});
    }
    return states;
  }

 private:
  enum Slot : int { kTotal = RoundScratch::kFirstFree, kWeight, kDelta, kFirstRuleSlot };

  // Every client's local steps on the block, handing each y_c to add(c, y_c).
  template <class Add>
  static void run_clients(const RoundBlock& b, Add& add) {
    if (plain_client_sgd(b.step)) {
      for_each_client(
          b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; }, add);
      return;
    }
    const std::size_t size = b.size();
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    BatchAddress address = b.address;
    const bool prox = b.step.client.is("fedprox");
    const double mu = prox ? theory::client_prox(b.step) : 0.0;
    std::unique_ptr<const UpdateRule> rule;
    std::vector<double*> buffers;
    if (!prox) {
      rule = make_update_rule(b.step.client, b.gamma);
      const int count = rule->vector_count() + rule->scalar_count();
      for (int j = 0; j < count; ++j) buffers.push_back(b.scratch.buffer(kFirstRuleSlot + j, size));
    }
    const std::span<double* const> all(buffers);
    const RuleState state{all.first(prox ? 0 : rule->vector_count()),
                          all.subspan(prox ? 0 : rule->vector_count())};
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      std::copy(b.x, b.x + size, y);
      if (prox) {
        // y ← y − γ(g_c(y) + μ(y − x_t)), H times.                                THEORY (O3)
        b.sampler.proximal_local_steps(c, address, b.active, b.gamma, b.local_steps, mu, b.x, y,
                                       b.kernel);
      } else {
        const RuleStep step(*rule, b.dim, b.active, state);  // THEORY (O0), (O1)
        b.sampler.optimiser_local_steps(c, address, b.active, b.local_steps, y, step, b.kernel);
      }
      add(c, static_cast<const double*>(y));
    }
  }

  // x_{t+1} = x_t − η_t Δ_t with FedExP's step η_t (theory::fedexp_server_step).     THEORY (O4)
  static void fedexp_step(const RoundBlock& b, int sampled, const double* total,
                          const std::array<double, kLanes>& spread) {
    const double eps = b.step.server.value("eps");
    double* delta = b.scratch.buffer(kDelta, b.size());
    for (std::size_t j = 0; j < b.size(); ++j) delta[j] = b.x[j] - total[j] / sampled;
    std::array<double, kLanes> norm{};
    column_squared_norms(b.dim, kLanes, delta, norm.data());
    std::array<double, kLanes> step{};
    for (int lane = 0; lane < kLanes; ++lane) {
      step[lane] = theory::fedexp_server_step(spread[lane], norm[lane], sampled, eps);
    }
    for (int i = 0; i < b.dim; ++i) {
      for (int lane = 0; lane < kLanes; ++lane) {
        b.x[i * kLanes + lane] -= step[lane] * delta[i * kLanes + lane];
      }
    }
  }

  // The server rule of optimisers/ on Δ_t (sgd with step and momentum too, O2), its state in the
  // auxiliary states.                                                       THEORY (O0), (O1)
  static void server_rule_step(const RoundBlock& b, int sampled, const double* total) {
    const theory::OptimiserSpec& spec = b.step.server;
    const auto rule = make_update_rule(spec, spec.value("lr"));
    const std::span<double* const> aux(
        b.auxiliary, static_cast<std::size_t>(rule->vector_count() + rule->scalar_count()));
    const RuleState state{aux.first(rule->vector_count()), aux.subspan(rule->vector_count())};
    if (b.address.round == 0) rule->start(b.dim, kLanes, b.x, state);
    double* delta = b.scratch.buffer(kDelta, b.size());
    for (std::size_t j = 0; j < b.size(); ++j) delta[j] = b.x[j] - total[j] / sampled;
    rule->update(b.dim, kLanes, b.active, static_cast<long>(b.address.round) + 1, b.x, delta,
                 state);
  }

  // weight[c·kLanes + lane] ∈ {0, 1}: S of the N clients for each active lane's chain.
  static void draw_subsets(const RoundBlock& b, int sampled, double* weight) {
    if (sampled == b.clients) return;
    std::fill(weight, weight + static_cast<std::size_t>(b.clients) * kLanes, 0.0);
    std::vector<int> order(b.clients);
    for (int lane = 0; lane < b.active; ++lane) {
      Stream stream(b.address.seed, Purpose::client_sampling, b.address.chain + lane, 0,
                    b.address.round);
      std::iota(order.begin(), order.end(), 0);
      for (int i = 0; i < sampled; ++i) {  // partial Fisher–Yates: order[0..S) is uniform
        const auto j = i + static_cast<int>(stream.below(b.clients - i));
        std::swap(order[i], order[j]);
        weight[static_cast<std::size_t>(order[i]) * kLanes + lane] = 1.0;
      }
    }
  }
};

const bool registered = RoundRegistry::add("fedopt", std::make_shared<FedOptRound>());

}  // namespace
}  // namespace fedverify::estimators
