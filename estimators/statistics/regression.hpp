// Least-squares line y = a + b·x with a Student-t confidence interval for the slope b.
//
// Used to measure remainder orders: "the error is O(γ^p)" is checked by fitting
// log(error) = a + p·log(γ) over a geometric γ grid and asserting a confidence bound on p.
// With n points, residual variance s² = Σ rᵢ² / (n − 2), Sxx = Σ (xᵢ − x̄)²,
//   se(b) = s / √Sxx,   CI = b ± t_{1−α/2, n−2} · se(b).
// The interval is exact under i.i.d. Gaussian residuals; for deterministic remainder curves
// (log–log plots of a smooth error) it is a measure of how straight the line is, not a
// probability statement, and is used as such.
#pragma once

#include <vector>

namespace fedverify::estimators {

struct SlopeEstimate {
  double slope = 0;      // b
  double intercept = 0;  // a
  double std_error = 0;  // se(b) (named so because `stderr` is a macro of <cstdio>)
  double lower = 0;      // b − t_{1−α/2, n−2} se(b)
  double upper = 0;      // b + t_{1−α/2, n−2} se(b)
  double alpha = 0;      // two-sided level of the interval
  int n = 0;             // number of points
};

// Requires x.size() == y.size() ≥ 3, finite values, x not all equal, 0 < α < 1;
// throws InputError naming the argument otherwise.
SlopeEstimate fit_slope(const std::vector<double>& x, const std::vector<double>& y, double alpha);

// fit_slope(log x, log y, α): the exponent p of y ≈ C xᵖ. Requires x, y > 0.
SlopeEstimate fit_log_log_slope(const std::vector<double>& x, const std::vector<double>& y,
                                double alpha);

// The weights of the least-squares slope, b = Σ_i w_i y_i with w_i = (x_i − x̄)/S_xx (Σ_i w_i = 0).
// Requires x not all equal.
std::vector<double> slope_weights(const std::vector<double>& x);

// The largest change of the least-squares slope when every y_i moves by some δ_i ∈ [lo, hi]:
// since Σ_i w_i = 0, b moves by Σ_i w_i δ_i ≤ ½ Σ_i |w_i| · (hi − lo). Used to turn per-point
// relative allowances a_i into a slope allowance (δ_i = log(1 + ε_i), |ε_i| ≤ a).
double slope_shift_bound(const std::vector<double>& x, double lo, double hi);

// The range of the least-squares slope over all y with y_i ∈ [lower_i, upper_i] (per-point
// intervals, e.g. confidence bands): b = Σ_i w_i y_i is linear in y, so its extremes take
// upper_i where w_i > 0 and lower_i where w_i < 0 (and the reverse). Requires equal sizes,
// lower_i ≤ upper_i, x not all equal.
struct SlopeRange {
  double lower = 0, upper = 0;
};
SlopeRange slope_range(const std::vector<double>& x, const std::vector<double>& lower,
                       const std::vector<double>& upper);

}  // namespace fedverify::estimators
