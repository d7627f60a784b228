#include "verify/planted/fedavg_bugs.hpp"

#include <array>

#include "estimators/samplers/algorithms/fedavg.hpp"
#include "verify/planted/entries.hpp"

namespace fedverify::verify::planted {

namespace {

// x_{t+1} = (1/(N + 1)) Σ_c y_c.
class WeightsSumBelowOne final : public estimators::FedAvgRound {
 protected:
  double aggregation_divisor(int clients) const override { return clients + 1.0; }
};

// x_{t+1} = (1/N) Σ_c y_c whatever the weights (FedLab #305).
class ClientWeightsIgnored final : public estimators::FedAvgRound {
 protected:
  const double* aggregation_weights(const estimators::RoundBlock& /*block*/) const override {
    return nullptr;
  }
};

// Every bug once: its name, what it does, its round.
struct Entry {
  FedAvgBug key;
  const char* name;
  const char* description;
  std::shared_ptr<const estimators::RoundSampler> (*round)();
};

const std::array<Entry, 1> kBugs = {{
    {FedAvgBug::weights_sum_below_one, "weights_sum_below_one",
     "server x ← (1/(N + 1)) Σ_c y_c: aggregation weights summing to N/(N + 1) (FedAvg and SGD)",
     []() -> std::shared_ptr<const estimators::RoundSampler> {
       return std::make_shared<WeightsSumBelowOne>();
     }},
}};

}  // namespace

std::vector<FedAvgBug> fedavg_bugs() { return keys_of(kBugs); }

std::string to_string(FedAvgBug bug) { return entry_of(kBugs, bug).name; }

std::string describe(FedAvgBug bug) { return entry_of(kBugs, bug).description; }

std::shared_ptr<const estimators::RoundSampler> fedavg_round_with(FedAvgBug bug) {
  return entry_of(kBugs, bug).round();
}

std::shared_ptr<const estimators::RoundSampler> fedavg_round_ignoring_client_weights() {
  return std::make_shared<ClientWeightsIgnored>();
}

}  // namespace fedverify::verify::planted
