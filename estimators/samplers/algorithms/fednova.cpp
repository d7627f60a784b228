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
    // The values as resolved: one for every client or N (the length was checked before the first
    // round, local_steps_per_round); read in place, once per block, without a copy.
    const std::vector<double>& steps = b.step.parameters.find(theory::kClientStepsKey)->second;
    const auto steps_of = [&](int c) {
      return steps.size() == 1 ? steps.front() : steps[static_cast<std::size_t>(c)];
    };
    double total_steps = 0;
    for (int c = 0; c < b.clients; ++c) total_steps += steps_of(c);
    const double mean_steps = total_steps / b.clients;
    const std::size_t size = b.size();
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c (x − y_c)/H_c
    std::fill(total, total + size, 0.0);
    BatchAddress address = b.address;
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      const double h = steps_of(c);
      std::copy(b.x, b.x + size, y);
      b.sampler.local_steps(c, address, b.active, b.gamma, static_cast<int>(h), y, nullptr,
                            b.kernel);
      for (std::size_t j = 0; j < size; ++j) total[j] += (b.x[j] - y[j]) / h;
    }
    const double scale = mean_steps / b.clients;  // THEORY (A2): H̄ · (1/N)
    for (std::size_t j = 0; j < size; ++j) b.x[j] -= scale * total[j];
  }

  // Σ_c H_c local steps per chain and round. The engine asks once, before the first round, so
  // the list's length is checked here (per_client_values names --client-steps).
  ChainStepCount local_steps_per_round(const SamplerOptions& options, int clients) const override {
    const std::vector<double> steps =
        theory::per_client_values(options.step, theory::kClientStepsKey, clients);
    return static_cast<ChainStepCount>(std::accumulate(steps.begin(), steps.end(), 0.0));
  }
};

[[maybe_unused]] const bool registered =
    RoundRegistry::add("fednova", std::make_shared<FedNovaRound>());

}  // namespace
}  // namespace fedverify::estimators
