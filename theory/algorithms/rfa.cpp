// RFA with the smoothed geometric median (THEORY (A6)): its registration; see rfa.hpp.
#include "theory/algorithms/rfa.hpp"

#include <fmt/format.h>

#include <memory>

#include "theory/base/input_error.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::theory {

FirstOrderMoments RobustAggregationTheory::first_order(const ExpansionCoefficients& /*k*/,
                                                       const RunSetting& /*setting*/) const {
  throw InputError(fmt::format(
      "--algo: {} aggregates by a nonlinear rule: no first-order expansion (THEORY (A6)); "
      "simulate it",
      name_));
}

ExactMoments RobustAggregationTheory::exact(const QuadraticProblem& /*problem*/,
                                            const RunSetting& /*setting*/) const {
  throw InputError(fmt::format(
      "--algo: {} aggregates by a nonlinear rule: no exact law (THEORY (A6)); simulate it", name_));
}

namespace {

// Help-text position: after DP-FedAvg, the other server-side variant of FedAvg.
constexpr int kRfaOrder = 28;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm{"rfa"},
     .order = kRfaOrder,
     .summary = "RFA: FedAvg's local steps, aggregated by the smoothed geometric median (THEORY "
                "A6)",
     .theory_labels = {"A6"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {weiszfeld_steps_parameter(), smoothing_parameter(), corrupted_parameter(),
                    corruption_parameter()}},
    std::make_unique<RobustAggregationTheory>("rfa"));

}  // namespace
}  // namespace fedverify::theory
