#include "estimators/samplers/algorithms/fedavg.hpp"

#include <algorithm>
#include <memory>

namespace fedverify::estimators {

void FedAvgRound::round(const RoundBlock& b) const {
  const std::size_t size = b.size();
  double* total = b.scratch.buffer(RoundScratch::kFirstFree, size);  // Σ_c y_c
  std::fill(total, total + size, 0.0);
  for_each_client(
      b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; },
      [&](int /*client*/, const double* yc) {
        for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
      });
  // x_{t+1} = (1/N) Σ_c y_c.                                                    THEORY (F0)
  const double divisor = aggregation_divisor(b.clients);
  for (std::size_t j = 0; j < size; ++j) b.x[j] = total[j] / divisor;
}

namespace {

const bool registered_fedavg = RoundRegistry::add("fedavg", std::make_shared<FedAvgRound>());
const bool registered_sgd = RoundRegistry::add("sgd", std::make_shared<FedAvgRound>());

}  // namespace

}  // namespace fedverify::estimators
