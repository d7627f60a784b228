// A row of an exact remainder-order claim: the remainder ‖exact − expansion‖ along a step grid
// is either a round-off zero on the whole grid, or its log–log slope has a lower confidence bound
// above the required order (a deterministic fit: the interval measures how straight the log–log
// line is). Used by quadratic.exact-remainder-order and linear-sa.remainder-order.
#pragma once

#include <string>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/plot.hpp"

namespace fedverify::claims::kit {

// Confidence level of the slope interval: α = 0.01 keeps a deterministic fit conservative.
inline constexpr double kSlopeAlpha = 0.01;

// predicted "order 2 (> required)", measured "slope [lower, upper]" or "max ≤ round-off"; data
// gamma, remainder, round_off and slope, slope_lower, slope_upper (or zero); gate "slope" within
// half the interval (at least 1e-3), or "max_remainder" within the round-off.
Row remainder_order_row(const std::string& setting, const std::vector<double>& gamma,
                        const std::vector<double>& remainder, double round_off,
                        double required_order);

// Round-off zeros cannot be drawn on a log axis: keeps the positive points of each series.
void drop_zeros(PlotSpec& figure);

}  // namespace fedverify::claims::kit
