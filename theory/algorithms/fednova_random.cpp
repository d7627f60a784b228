// FedNova and FedAvg with random local steps on quadratic problems (THEORY (A2c)); see fednova.hpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "theory/algorithms/fednova.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/augmented_moments.hpp"
#include "theory/problems/optimum.hpp"

namespace fedverify::theory {

ExactMoments random_steps_exact(const QuadraticProblem& q, const RunSetting& s,
                                UnequalStepsAggregation aggregation) {
  validate(Algorithm{"fednova"}, s);
  const int n = q.num_clients(), d = q.dim();
  const std::vector<double> bounds = per_client_values(s, kClientStepsKey, n);  // K_c
  double draws = 1;
  for (const double k : bounds) draws *= k;
  if (draws > kMaxRandomStepDraws) {
    throw InputError(fmt::format(
        "--client-steps: the exact law with --random-steps enumerates the {:.3g} joint draws of "
        "the H_c (at most {:.0e}); simulate instead",
        draws, kMaxRandomStepDraws));
  }
  const Vector x_star = minimizer(q);
  const Eigen::Index d1 = d + 1;
  Matrix mean_map = Matrix::Zero(d1, d1), second = Matrix::Zero(d1 * d1, d1 * d1);
  Matrix noise = Matrix::Zero(d1, d1);
  RunSetting fixed = s;
  fixed.parameters.erase(std::string(kRandomStepsKey));
  std::vector<double> steps(static_cast<std::size_t>(n), 1.0);
  const double probability = 1.0 / draws;
  for (;;) {
    fixed.parameters[std::string(kClientStepsKey)] = steps;
    // The round for this draw about x*: z' = (I − γD)z + γ(r − Dx*) + η, Cov η = γG.
    const AffineRoundMap map = unequal_steps_round_map(q, fixed, aggregation);
    Matrix a = Matrix::Identity(d1, d1);
    a.topLeftCorner(d, d) = map.transition();
    a.topRightCorner(d, 1) = s.gamma * (map.r - map.d * x_star);
    mean_map += probability * a;
    second += probability * kron(a, a);
    noise.topLeftCorner(d, d) += (probability * s.gamma) * map.g;
    int c = 0;  // the next draw, an odometer over H_c ∈ {1, …, K_c}
    while (c < n && ++steps[static_cast<std::size_t>(c)] > bounds[static_cast<std::size_t>(c)]) {
      steps[static_cast<std::size_t>(c++)] = 1.0;
    }
    if (c == n) break;
  }
  ExactMoments out = augmented_stationary_moments(mean_map, second, noise, s.gamma);
  out.mean += x_star;
  return out;
}

Vector expected_steps_surrogate(const QuadraticProblem& q, const RunSetting& s) {
  RunSetting expected = s;
  std::vector<double> steps = per_client_values(s, kClientStepsKey, q.num_clients());
  for (double& k : steps) k = (k + 1.0) / 2.0;  // E[H_c], H_c uniform on {1, …, K_c}   (A2c)
  expected.parameters[std::string(kClientStepsKey)] = steps;
  return surrogate_optimum(q, expected);
}

}  // namespace fedverify::theory
