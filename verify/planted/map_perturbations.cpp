#include "verify/planted/map_perturbations.hpp"

#include <cmath>

namespace fedverify::verify::planted {

double rate_with_l_for_mu(const theory::RunSetting& step, double /*mu*/, double l) {
  if (step.gamma * l >= 1.0) return 0.0;
  return std::pow(1.0 - step.gamma * l, step.local_steps);
}

theory::FirstOrderMoments first_order_summed_drift(const theory::ExpansionCoefficients& k,
                                                   theory::Algorithm algorithm,
                                                   const theory::RunSetting& step) {
  theory::FirstOrderMoments m = theory::first_order(k, algorithm, step);
  if (algorithm == theory::Algorithm::fedavg) {
    const double h = step.local_steps;
    m.bias_heterogeneity = step.gamma * h * (h - 1) / 2 * k.b_heterogeneity;
    m.mean = m.x_star + m.bias_heterogeneity + m.bias_stochastic;
  }
  return m;
}

}  // namespace fedverify::verify::planted
