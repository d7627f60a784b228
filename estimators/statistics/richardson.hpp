// Richardson extrapolation over the step size of a measured quantity with a known remainder order:
// v(γ) = v₀ + c·γ^p + o(γ^p), measured at two or more steps γ_k by independent estimates v̂_k with
// standard errors s_k (e.g. mean(x − y)/γ → b_s, THEORY (L3), whose remainder order is measured
// there). The extrapolated v₀ is a linear combination Σ_k w_k v̂_k, so its standard error is
// √(Σ_k w_k² s_k²).
//
//   two steps γ₁ ≠ γ₂:  v₀ = (r v̂₁ − v̂₂)/(r − 1),  r = (γ₂/γ₁)^p   (exact for the model);
//   more steps:         the weighted least-squares fit of v̂ = v₀ + c γ^p (weights 1/s_k²),
//                       w = the first row of (XᵀWX)⁻¹XᵀW, X = [1, γ^p].
// With two steps the fit is the two-point formula (the weights do not matter), so one function
// serves both. The o(γ^p) term is the caller's: extrapolation removes the γ^p term only.
#pragma once

#include <vector>

#include "estimators/statistics/moments.hpp"

namespace fedverify::estimators {

struct RichardsonEstimate {
  double value = 0;             // v₀
  double std_error = 0;         // √(Σ_k w_k² s_k²)
  std::vector<double> weights;  // w_k (they sum to 1; Σ_k w_k γ_k^p = 0)
};

// Throws InputError naming the argument unless steps and estimates have the same size ≥ 2, the
// steps are positive, finite and not all equal, the standard errors positive and finite (with
// more than two steps), and order > 0.
RichardsonEstimate richardson_extrapolate(const std::vector<double>& steps,
                                          const std::vector<ReplicatedMean>& estimates,
                                          double order);

}  // namespace fedverify::estimators
