// FedAvg with the coordinate-wise trimmed mean (THEORY (A6), RFA's other rule): its registration;
// see rfa.hpp.
#include <memory>

#include "theory/algorithms/rfa.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::theory {
namespace {

// Help-text position: after RFA.
constexpr int kTrimmedMeanOrder = 29;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm{"trimmed-mean"},
     .order = kTrimmedMeanOrder,
     .summary = "FedAvg's local steps, aggregated by the coordinate-wise trimmed mean (THEORY A6)",
     .theory_labels = {"A6"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {trim_parameter(), corrupted_parameter(), corruption_parameter()}},
    std::make_unique<RobustAggregationTheory>("trimmed-mean"));

}  // namespace
}  // namespace fedverify::theory
