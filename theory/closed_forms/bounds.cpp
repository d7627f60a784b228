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

double FiniteTimeBound::at(int rounds) const {
  return std::pow(rho, local_steps * rounds) * initial + stationary;  // THEORY (S5), (T3)
}

double FiniteTimeBound::rate() const { return -std::log(rho); }

FiniteTimeBound scaffold_finite_time_bound(const RunSetting& step, double mu, double l,
                                           double zeta2, double sigma_star2, int clients,
                                           double initial_distance2, double q) {
  const double gamma = step.gamma;
  const int h = step.local_steps;
  const double sigma = std::sqrt(sigma_star2);
  FiniteTimeBound b;  // THEORY (S5)
  b.rho = 1.0 - gamma * mu / 4.0;
  b.initial = initial_distance2 + 2 * gamma * gamma * h * h * zeta2 + sigma_star2 / (l * mu);
  b.stationary = gamma * sigma_star2 / (clients * mu) +
                 std::pow(gamma, 1.5) * q * sigma_star2 * sigma / std::pow(mu, 2.5) +
                 gamma * gamma * gamma * h * q * q * sigma_star2 * sigma_star2 / (mu * mu * mu);
  b.local_steps = h;
  return b;
}

FiniteTimeBound fedavg_finite_time_bound(const RunSetting& step, double mu, double floor,
                                         double initial_distance2) {
  return {.rho = 1.0 - step.gamma * mu,  // THEORY (T3)
          .initial = initial_distance2,
          .stationary = floor,
          .local_steps = step.local_steps};
}

double first_order_floor(const FirstOrderMoments& first) {
  return (first.mean - first.x_star).squaredNorm() + first.cov.trace();  // THEORY (T3)
}

}  // namespace fedverify::theory
