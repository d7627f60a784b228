#include "verify/claims/kit/error_slope.hpp"

#include <cmath>
#include <cstddef>

namespace fedverify::claims::kit {

namespace {

// The mean over the replications, leaving out replication `skip` (none when skip ≥ size).
double mean_without(const std::vector<double>& v, std::size_t skip) {
  double sum = 0;
  for (std::size_t g = 0; g < v.size(); ++g) sum += g == skip ? 0.0 : v[g];
  return sum / static_cast<double>(v.size() - (skip < v.size() ? 1 : 0));
}

}  // namespace

std::vector<double> replication_errors(const StationaryRun& run, const Vector& x_star) {
  std::vector<double> out;
  out.reserve(run.replicas.size());
  for (const auto& r : run.replicas) out.push_back((r.mean - x_star).squaredNorm() + r.cov.trace());
  return out;
}

double mean_error(const std::vector<double>& errors) { return mean_without(errors, errors.size()); }

estimators::Decision error_slope_test(const std::vector<double>& low,
                                      const std::vector<double>& high, double at_low,
                                      double at_high, double s0, bool above, double alpha) {
  const double sign = above ? 1.0 : -1.0;
  const double log_scale = std::log(at_high / at_low);
  const auto slope = [&](std::size_t skip) {
    return sign * std::log(mean_without(high, skip) / mean_without(low, skip)) / log_scale;
  };
  std::vector<double> leave_one_out;
  leave_one_out.reserve(high.size());
  for (std::size_t g = 0; g < high.size(); ++g) leave_one_out.push_back(slope(g));
  return estimators::jackknife_exceeds(slope(high.size()), leave_one_out, sign * s0, alpha);
}

}  // namespace fedverify::claims::kit
