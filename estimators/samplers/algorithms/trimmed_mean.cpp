// The trimmed-mean round (THEORY (A6)): the coordinate-wise trimmed mean of the client vectors
// (theory::trimmed_mean; --trim 0 is FedAvg's mean under the same threat model); see
// robust_round.hpp.
#include <memory>

#include "estimators/samplers/algorithms/robust_round.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::estimators {
namespace {

Vector trimmed_rule(const Matrix& points, const theory::RunSetting& s) {
  return theory::trimmed_mean(points, theory::trim(s));
}

const bool registered =
    RoundRegistry::add("trimmed-mean", std::make_shared<RobustRound>(trimmed_rule));

}  // namespace
}  // namespace fedverify::estimators
