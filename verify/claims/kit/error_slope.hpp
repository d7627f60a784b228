// The slope of E‖x − x*‖² between two stationary runs, with its delete-one jackknife over the
// replications (the runs' replications paired by index: independent pairs), for claims that
// confirm "the error grows (or falls) faster / slower than a power": a scale law measured by
// simulation (optimisers.reshuffled-epochs in γ, optimisers.rfa in the corruption's scale).
#pragma once

#include <vector>

#include "estimators/statistics/decide.hpp"
#include "verify/claims/kit/stationary_run.hpp"

namespace fedverify::claims::kit {

// E‖x − x*‖² of each replication: ‖mean − x*‖² + tr Cov over its chains and rounds.
std::vector<double> replication_errors(const StationaryRun& run, const Vector& x_star);

// The mean of the replications' errors.
double mean_error(const std::vector<double>& errors);

// s = log(ē_high/ē_low)/log(at_high/at_low), the slope of the mean error against the scale (γ,
// or s), and the one-sided jackknife test (decide.hpp (i)) confirming s > s0 (`above`) or s < s0
// (the rule applied to −s and −s0; the returned estimate and bounds are then of −s).
estimators::Decision error_slope_test(const std::vector<double>& low,
                                      const std::vector<double>& high, double at_low,
                                      double at_high, double s0, bool above, double alpha);

}  // namespace fedverify::claims::kit
