// FedNova (THEORY A2): client c runs its own H_c local SGD steps from the global iterate (the
// parameter --client-steps, theory/problems/fednova_setting.hpp), and the server averages the
// normalised updates and rescales them by τ_eff = H̄ = (1/N) Σ_c H_c:
//
//   y_c ← x_t;  y_c ← y_c − γ g_c(y_c)  (H_c times);
//   x_{t+1} = x_t − H̄ (1/N) Σ_c (x_t − y_c)/H_c.                                THEORY (A2)
//
// One client at a time (the kernels' pair of clients runs one H for both).
#include <algorithm>
#include <memory>
#include <numeric>

#include "estimators/samplers/round.hpp"
#include "theory/problems/fednova_setting.hpp"

namespace fedverify::estimators {
namespace {

class FedNovaRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    const std::vector<double> steps =
        theory::per_client_values(b.step, theory::kClientStepsKey, b.clients);
    const double mean_steps = std::accumulate(steps.begin(), steps.end(), 0.0) / b.clients;
    const std::size_t size = b.size();
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c (x − y_c)/H_c
    std::fill(total, total + size, 0.0);
    BatchAddress address = b.address;
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      const double h = steps[static_cast<std::size_t>(c)];
      std::copy(b.x, b.x + size, y);
      b.sampler.local_steps(c, address, b.active, b.gamma, static_cast<int>(h), y, nullptr,
                            b.kernel);
      for (std::size_t j = 0; j < size; ++j) total[j] += (b.x[j] - y[j]) / h;
    }
    const double scale = mean_steps / b.clients;  // THEORY (A2): H̄ · (1/N)
    for (std::size_t j = 0; j < size; ++j) b.x[j] -= scale * total[j];
  }

  // Σ_c H_c local steps per chain and round.
  ChainStepCount local_steps_per_round(const SamplerOptions& options, int clients) const override {
    const std::vector<double> steps =
        theory::per_client_values(options.step, theory::kClientStepsKey, clients);
    return static_cast<ChainStepCount>(std::accumulate(steps.begin(), steps.end(), 0.0));
  }

  // No auxiliary state. Called once before the first round with the number of clients: the
  // length of --client-steps is checked here, before any chain moves.
  std::vector<AuxiliaryState> auxiliary_states(const SamplerOptions& options,
                                               int clients) const override {
    theory::per_client_values(options.step, theory::kClientStepsKey, clients);
    return {};
  }
};

[[maybe_unused]] const bool registered =
    RoundRegistry::add("fednova", std::make_shared<FedNovaRound>());

}  // namespace
}  // namespace fedverify::estimators
