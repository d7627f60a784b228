// FedNova (THEORY A2): client c runs its own H_c local SGD steps from the global iterate (the
// parameter --client-steps, theory/problems/fednova_setting.hpp), and the server averages the
// normalised updates and rescales them by τ_eff = H̄ = (1/N) Σ_c H_c:
//
//   y_c ← x_t;  y_c ← y_c − γ g_c(y_c)  (H_c times);
//   x_{t+1} = x_t − H̄ (1/N) Σ_c (x_t − y_c)/H_c.                                THEORY (A2)
//
// With --random-steps 1 (THEORY (A2c)) each chain's client c draws H_c uniformly from {1, …, K_c}
// every round (its client-sampling stream, Purpose::client_sampling, client index c) and τ_eff is
// the chain's mean of its draws; the kernel runs K_c steps on the block and a lane stops updating
// after its own H_c (its first H_c noise draws are those of H_c steps).
// One client at a time (the kernels' pair of clients runs one H for both).
#include <algorithm>
#include <array>
#include <memory>
#include <numeric>

#include "estimators/samplers/round.hpp"
#include "theory/problems/fednova_setting.hpp"

namespace fedverify::estimators {
namespace {

// y ← y − γg on the lanes whose own number of steps is not reached (THEORY (A2c)).
class LaneLimitedStep final : public LocalStep {
 public:
  LaneLimitedStep(double gamma, const std::array<int, kLanes>& steps, int dim)
      : gamma_(gamma), steps_(steps), dim_(dim) {}
  void operator()(int step, const double* g, double* y) const override {
    for (int i = 0; i < dim_; ++i) {
      for (int lane = 0; lane < kLanes; ++lane) {
        const std::size_t j = static_cast<std::size_t>(i) * kLanes + lane;
        if (step < steps_[lane]) y[j] -= gamma_ * g[j];
      }
    }
  }

 private:
  double gamma_;
  const std::array<int, kLanes>& steps_;
  int dim_;
};

class FedNovaRound final : public RoundSampler {
 public:
  void round(const RoundBlock& b) const override {
    if (theory::random_steps(b.step)) {
      random_round(b);
      return;
    }
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

  // THEORY (A2c): H_c drawn per chain; x_{t+1} = x_t − τ_eff (1/N) Σ_c (x_t − y_c)/H_c per lane.
  static void random_round(const RoundBlock& b) {
    // K_c as resolved, read in place (the list's length was checked before the first round).
    const std::vector<double>& bounds = b.step.parameters.find(theory::kClientStepsKey)->second;
    const std::size_t size = b.size();
    double* y = b.scratch.buffer(RoundScratch::kClientIterate, size);
    double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c (x − y_c)/H_c
    std::fill(total, total + size, 0.0);
    std::array<double, kLanes> steps_sum{};
    std::array<int, kLanes> steps{};
    BatchAddress address = b.address;
    for (int c = 0; c < b.clients; ++c) {
      address.client = static_cast<std::uint32_t>(c);
      const auto bound = static_cast<std::uint64_t>(
          bounds.size() == 1 ? bounds.front() : bounds[static_cast<std::size_t>(c)]);
      for (int lane = 0; lane < kLanes; ++lane) {
        Stream stream(b.address.seed, Purpose::client_sampling, b.address.chain + lane,
                      static_cast<std::uint64_t>(c), b.address.round);
        steps[lane] = 1 + static_cast<int>(stream.below(bound));
        steps_sum[lane] += steps[lane];
      }
      std::copy(b.x, b.x + size, y);
      const LaneLimitedStep step(b.gamma, steps, b.dim);
      b.sampler.optimiser_local_steps(c, address, b.active, static_cast<int>(bound), y, step,
                                      b.kernel);
      for (int i = 0; i < b.dim; ++i) {
        for (int lane = 0; lane < kLanes; ++lane) {
          const std::size_t j = static_cast<std::size_t>(i) * kLanes + lane;
          total[j] += (b.x[j] - y[j]) / steps[lane];
        }
      }
    }
    for (int i = 0; i < b.dim; ++i) {
      for (int lane = 0; lane < kLanes; ++lane) {
        const std::size_t j = static_cast<std::size_t>(i) * kLanes + lane;
        b.x[j] -= steps_sum[lane] / b.clients / b.clients * total[j];  // τ_eff · (1/N)
      }
    }
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
