#include "verify/claims/quadratic/common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedverify::claims::quadratic {

std::vector<double> step_grid(double l, bool quick) {
  const int points = quick ? 5 : 10;
  std::vector<double> g;
  for (int i = 0; i < points; ++i) {
    g.push_back(1e-4 * std::pow(1e3, static_cast<double>(i) / (points - 1)) / l);
  }
  return g;
}

double round_off_zero(const theory::QuadraticProblem& q, const theory::ExpansionCoefficients& k) {
  const double scale = std::max(1.0, k.constants.x_star.norm());
  const double kappa = q.smoothness() / q.strong_convexity();
  return kRoundOffUlps * kappa * std::numeric_limits<double>::epsilon() * scale;
}

}  // namespace fedverify::claims::quadratic
