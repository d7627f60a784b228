// FedOpt (THEORY O0): S of the N clients sampled without replacement each round (O5), each runs
// H local steps of its client optimiser from x_t (client sgd, or FedProx, O3), the server treats
// the pseudo-gradient Δ_t = (1/S) Σ_{c∈S_t} (x_t − y_c) as a gradient (server sgd, O2):
//
//   m_{t+1} = β m_t + Δ_t,   x_{t+1} = x_t − η_g m_{t+1}           (heavy ball; β = 0: x_t − η_g
//   Δ_t) x_{t+1} = x_t − η_g (Δ_t + β m_{t+1})                          (Nesterov)
//
// The momentum buffer m is the one auxiliary state (0 at t = 0). With η_g = 1, β = 0 and S = N the
// round is FedAvg's: x_{t+1} = (1/N) Σ_c y_c, bit for bit.
//
// Sampling: chain k draws its subset of round t from the stream (seed, client_sampling, k, 0, t)
// by a partial Fisher–Yates shuffle, so it does not depend on K, threads or blocks. Every client
// runs its local steps on every lane (its noise stream is (seed, gradient_noise, k, c, t) whether
// or not it is sampled) and only the sampled ones enter the lane's average: the cost of a round is
// that of N clients whatever S.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "estimators/samplers/round.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::estimators {
namespace {

class FedOptRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const theory::ServerSgd server = theory::server_sgd(b.step);
    const double mu = theory::client_prox(b.step);
    const int sampled = theory::participating_clients(b.step, b.clients);
    const std::size_t size = b.size();
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_{c∈S} y_c, per lane
    std::fill(total, total + size, 0.0);
    // weight[c·kLanes + lane] = 1 when client c is sampled in the lane's chain this round.
    double* weight = b.scratch.buffer(RoundScratch::kFirstFree + 1,
                                      static_cast<std::size_t>(b.clients) * kLanes);
    draw_subsets(b, sampled, weight);
    auto add = [&](int c, const double* yc) {
      if (sampled == b.clients) {
        for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
        return;
      }
      const double* w = weight + static_cast<std::size_t>(c) * kLanes;
      for (int i = 0; i < b.dim; ++i) {
        for (int lane = 0; lane < kLanes; ++lane) {
          total[i * kLanes + lane] += w[lane] * yc[i * kLanes + lane];
        }
      }
    };
    if (mu == 0.0) {
      for_each_client(
          b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; }, add);
    } else {
      double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
      BatchAddress address = b.address;
      for (int c = 0; c < b.clients; ++c) {
        address.client = static_cast<std::uint32_t>(c);
        std::copy(b.x, b.x + size, y);
        // y ← y − γ(g_c(y) + μ(y − x_t)), H times.                                THEORY (O3)
        b.sampler.proximal_local_steps(c, address, b.active, b.gamma, b.local_steps, mu, b.x, y,
                                       b.kernel);
        add(c, y);
      }
    }
    if (server.lr == 1.0 && !server.augmented()) {
      // x_{t+1} = x_t − (x_t − ȳ) = ȳ: FedAvg's average.                          THEORY (F0)
      for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / sampled;
      return;
    }
    double* m = b.auxiliary[0];
    for (std::size_t j = 0; j < size; ++j) {
      const double delta = b.x[j] - total[j] / sampled;  // Δ_t                  THEORY (O0)
      if (!server.augmented()) {
        b.x[j] -= server.lr * delta;  // x_{t+1} = x_t − η_g Δ_t                  THEORY (O2)
        continue;
      }
      m[j] = server.momentum * m[j] + delta;  // m_{t+1} = β m_t + Δ_t            THEORY (O2)
      b.x[j] -= server.nesterov ? server.lr * (delta + server.momentum * m[j]) : server.lr * m[j];
    }
  }

  std::vector<AuxiliaryState> auxiliary_states(int /*clients*/) const override {
    return {{"server momentum m", true}};
  }

 private:
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
