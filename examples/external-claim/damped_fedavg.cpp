// An algorithm of this project: FedAvg with a damped server step,
//   x_{t+1} = x_t + β ((1/N) Σ_c y_c − x_t),  β = 1/2,
// y_c the client's iterate after H local SGD steps from x_t. It registers its descriptor (name,
// --help line, the options it reads) and its round; it has no closed forms (predict refuses it).
// On a quadratic the round is affine, x' = (1 − β)x + β(Mx + r + η), whose stationary mean solves
// x = Mx + r: FedAvg's (THEORY F5), which external.damped-mean checks.
#include <algorithm>
#include <memory>

#include "estimators/samplers/round.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace external {

using namespace fedverify;

constexpr double kServerStep = 0.5;  // β

class DampedFedAvgRound final : public estimators::RoundSampler {
 public:
  void round(const estimators::RoundBlock& b) const override {
    const std::size_t size = b.size();
    double* total = b.scratch.buffer(estimators::RoundScratch::kFirstFree, size);
    std::fill(total, total + size, 0.0);
    estimators::for_each_client(
        b, [](int /*client*/, double* /*buffer*/) -> const double* { return nullptr; },
        [&](int /*client*/, const double* yc) {
          for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
        });
    for (std::size_t j = 0; j < size; ++j) {
      b.x[j] += kServerStep * (total[j] / b.clients - b.x[j]);
    }
  }
};

[[maybe_unused]] const bool registered_descriptor = theory::register_algorithm(
    {.algorithm = theory::Algorithm{"fedavg-damped"},
     .order = 1000,
     .summary = "FedAvg with server step 1/2 (examples/external-claim)",
     .family = theory::AlgorithmFamily::chain,
     .options = {theory::AlgorithmOption::local_steps, theory::AlgorithmOption::burn_in,
                 theory::AlgorithmOption::batch_rounds}});
[[maybe_unused]] const bool registered_round =
    estimators::RoundRegistry::add("fedavg-damped", std::make_shared<DampedFedAvgRound>());

}  // namespace external
