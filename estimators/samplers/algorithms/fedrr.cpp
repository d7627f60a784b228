// FedRR, Richardson–Romberg extrapolation of FedAvg (THEORY R0): two FedAvg runs of every chain,
// at steps γ and 2γ, and the reported state
//
//   χ_t = 2 x_t^{(γ)} − x_t^{(2γ)},                                                THEORY (R0)
//
// which cancels the O(γ) bias. The 2γ run draws independent noise (Purpose::second_run, THEORY
// R2) unless SamplerOptions::coupling asks for the same noise as the γ run.
#include <memory>

#include "estimators/samplers/algorithms/fedavg.hpp"

namespace fedverify::estimators {

namespace {

class FedRRRound final : public FedAvgRound {
 public:
  std::vector<RunSpec> runs(const SamplerOptions& options) const override {
    constexpr double kSecondStep = 2.0;  // the second run's step is 2γ          THEORY (R0)
    const Purpose second = options.coupling == theory::NoiseCoupling::independent
                               ? Purpose::second_run
                               : Purpose::gradient_noise;
    return {RunSpec{1.0, Purpose::gradient_noise}, RunSpec{kSecondStep, second}};
  }

  // χ = 2x_γ − x_2γ; 2x is exact, so the one rounding is that of the subtraction.
  void combine_runs(std::span<const Matrix* const> runs, int first, int active,
                    Matrix& out) const override {
    const Matrix& at_gamma = *runs[0];
    const Matrix& at_2gamma = *runs[1];
    for (int j = first; j < first + active; ++j) {
      for (int i = 0; i < out.rows(); ++i) out(i, j) = 2.0 * at_gamma(i, j) - at_2gamma(i, j);
    }
  }
};

const bool registered = RoundRegistry::add("fedrr", std::make_shared<FedRRRound>());

}  // namespace

}  // namespace fedverify::estimators
