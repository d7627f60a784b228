#include "estimators/statistics/richardson.hpp"

#include <cmath>
#include <cstddef>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

RichardsonEstimate richardson_extrapolate(const std::vector<double>& steps,
                                          const std::vector<ReplicatedMean>& estimates,
                                          double order) {
  const std::size_t n = steps.size();
  if (n < 2 || estimates.size() != n) {
    throw InputError("steps: Richardson extrapolation needs two or more steps, one estimate each");
  }
  if (!(order > 0) || !std::isfinite(order)) throw InputError("order: must be positive");
  bool distinct = false;
  for (std::size_t k = 0; k < n; ++k) {
    if (!(steps[k] > 0) || !std::isfinite(steps[k])) {
      throw InputError("steps: must be positive and finite");
    }
    distinct = distinct || steps[k] != steps[0];
    if (n > 2 && (!(estimates[k].se > 0) || !std::isfinite(estimates[k].se))) {
      throw InputError("estimates: standard errors must be positive (the fit's weights)");
    }
  }
  if (!distinct) throw InputError("steps: must not all be equal");
  RichardsonEstimate out;
  out.weights.assign(n, 0.0);
  if (n == 2) {
    // v₀ = (r v̂₁ − v̂₂)/(r − 1), r = (γ₂/γ₁)^p.
    const double r = std::pow(steps[1] / steps[0], order);
    out.weights = {r / (r - 1.0), -1.0 / (r - 1.0)};
  } else {
    // Weighted least squares of v = v₀ + c γ^p: the normal equations of the 2×2 system.
    double s0 = 0, s1 = 0, s2 = 0;  // Σ w, Σ w g, Σ w g² with g = γ^p, w = 1/s²
    for (std::size_t k = 0; k < n; ++k) {
      const double w = 1.0 / (estimates[k].se * estimates[k].se);
      const double g = std::pow(steps[k], order);
      s0 += w;
      s1 += w * g;
      s2 += w * g * g;
    }
    const double det = s0 * s2 - s1 * s1;
    for (std::size_t k = 0; k < n; ++k) {
      const double w = 1.0 / (estimates[k].se * estimates[k].se);
      const double g = std::pow(steps[k], order);
      out.weights[k] = w * (s2 - s1 * g) / det;  // first row of (XᵀWX)⁻¹XᵀW
    }
  }
  double variance = 0;
  for (std::size_t k = 0; k < n; ++k) {
    out.value += out.weights[k] * estimates[k].mean;
    variance += out.weights[k] * out.weights[k] * estimates[k].se * estimates[k].se;
  }
  out.std_error = std::sqrt(variance);
  return out;
}

}  // namespace fedverify::estimators
