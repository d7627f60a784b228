#include "estimators/samplers/algorithms/fedavg.hpp"

#include <algorithm>
#include <memory>

namespace fedverify::estimators {

void FedAvgRound::round(const RoundBlock& b) const {
  const std::size_t size = b.size();
  double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c y_c or Σ_c p_c y_c
  std::fill(total, total + size, 0.0);
  const double* weights = aggregation_weights(b);
  for_each_client(
      b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; },
      [&](int client, const double* yc) {
        if (weights == nullptr) {
          for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
        } else {
          const double p = weights[client];
          for (std::size_t j = 0; j < size; ++j) total[j] += p * yc[j];
        }
      });
  const double divisor = aggregation_divisor(b.clients);
  if (weights == nullptr) {
    // x_{t+1} = (1/N) Σ_c y_c.                                                  THEORY (F0)
    for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / divisor;
  } else {
    // x_{t+1} = Σ_c p_c y_c (N/divisor = 1 unless a planted divisor).           THEORY (A1)
    const double scale = b.clients / divisor;
    for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] * scale;
  }
}

namespace {

const bool registered_fedavg = RoundRegistry::add("fedavg", std::make_shared<FedAvgRound>());
const bool registered_sgd = RoundRegistry::add("sgd", std::make_shared<FedAvgRound>());

}  // namespace

}  // namespace fedverify::estimators
