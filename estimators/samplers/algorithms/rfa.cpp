// RFA's round (THEORY (A6)): the smoothed geometric median of the client vectors by R smoothed
// Weiszfeld iterations (theory::geometric_median), equal weights; see robust_round.hpp.
#include <memory>

#include "estimators/samplers/algorithms/robust_round.hpp"
#include "theory/problems/robust_aggregation.hpp"

namespace fedverify::estimators {
namespace {

Vector median_rule(const Matrix& points, const theory::RunSetting& s) {
  return theory::geometric_median(points, Vector::Ones(points.cols()), theory::weiszfeld_steps(s),
                                  theory::smoothing(s));
}

const bool registered = RoundRegistry::add("rfa", std::make_shared<RobustRound>(median_rule));

}  // namespace
}  // namespace fedverify::estimators
