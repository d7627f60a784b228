#include "verify/planted/fedavg_bugs.hpp"

#include "estimators/samplers/algorithms/fedavg.hpp"

namespace fedverify::verify::planted {

namespace {

// x_{t+1} = (1/(N + 1)) Σ_c y_c.
class WeightsSumBelowOne final : public estimators::FedAvgRound {
 protected:
  double aggregation_divisor(int clients) const override { return clients + 1.0; }
};

}  // namespace

std::vector<FedAvgBug> fedavg_bugs() { return {FedAvgBug::weights_sum_below_one}; }

std::string to_string(FedAvgBug bug) {
  switch (bug) {
    case FedAvgBug::weights_sum_below_one:
      return "weights_sum_below_one";
  }
  return "unknown";
}

std::shared_ptr<const estimators::RoundSampler> fedavg_round_with(FedAvgBug bug) {
  switch (bug) {
    case FedAvgBug::weights_sum_below_one:
      return std::make_shared<WeightsSumBelowOne>();
  }
  return nullptr;
}

}  // namespace fedverify::verify::planted
