#include "theory/closed_forms/bounds.hpp"

#include <cmath>

namespace fedverify::theory {

double fedavg_round_contraction(const RunSetting& step, double mu) {
  return std::pow(1.0 - step.gamma * mu, step.local_steps);  // THEORY (F1)
}

double fedavg_contraction(const RunSetting& step, double mu, int rounds) {
  return std::pow(1.0 - step.gamma * mu, step.local_steps * rounds);  // THEORY (F1)
}

double fedavg_contraction_rate(const RunSetting& step, double mu) {
  return -std::log(1.0 - step.gamma * mu);  // THEORY (F1)
}

double ScaffoldFiniteTimeBound::at(int rounds) const {
  return std::pow(rho, local_steps * rounds) * initial + stationary;  // THEORY (S5)
}

double ScaffoldFiniteTimeBound::rate() const { return -std::log(rho); }

ScaffoldFiniteTimeBound scaffold_finite_time_bound(const RunSetting& step, double mu, double l,
                                                   double zeta2, double sigma_star2, int clients,
                                                   double initial_distance2) {
  const double gamma = step.gamma;
  const int h = step.local_steps;
  ScaffoldFiniteTimeBound b;
  b.rho = 1.0 - gamma * mu / 4.0;
  b.initial = initial_distance2 + 2 * gamma * gamma * h * h * zeta2 + sigma_star2 / (l * mu);
  b.stationary = gamma * sigma_star2 / (clients * mu);
  b.local_steps = h;
  return b;
}

}  // namespace fedverify::theory
