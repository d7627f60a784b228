#include "verify/claims/dynamics/simulated_complexity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "estimators/statistics/moments.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics {
namespace {

using theory::Algorithm;

Algorithm algorithm_of(ComplexityMethod m) {
  switch (m) {
    case ComplexityMethod::fedavg:
    case ComplexityMethod::minibatch_sgd:
      return Algorithm::fedavg;
    case ComplexityMethod::scaffold:
      return Algorithm::scaffold;
    case ComplexityMethod::fedrr:
      break;
  }
  throw std::invalid_argument(
      "simulated_gradient_complexity: FedRR (two runs per curve) is searched on exact curves only");
}

int local_steps_of(ComplexityMethod m, const ComplexitySetting& s) {
  return m == ComplexityMethod::minibatch_sgd ? 1 : s.local_steps;
}

double gamma_at(const ComplexitySetting& s, double l, int i) {
  return s.gamma_max_l / l * std::pow(2.0, -i / 8.0);
}

// One more than the last round whose value exceeds ε², or 0 when the last round's does (not
// reached within the horizon). Round 0 is x₀ itself, above every ε² (checked by the search).
int rounds_to_reach(const std::vector<double>& e, double epsilon2) {
  if (e.back() > epsilon2) return 0;
  int t = static_cast<int>(e.size()) - 1;
  while (t > 0 && !(e[t] > epsilon2)) --t;
  return t + 1;
}

}  // namespace

int simulated_horizon(double gamma, int local_steps, double lambda_min) {
  return static_cast<int>(std::ceil(8.0 / (local_steps * gamma * lambda_min)));
}

std::int64_t band_tests_bound(const theory::Problem& p, ComplexityMethod method,
                              const ComplexitySetting& setting, const SimulatedSearch& search) {
  const theory::ProblemConstants k = theory::problem_constants(p);
  const double lambda_min = slowest_mean_rate(k.hessian_at_optimum);
  const int h = local_steps_of(method, setting);
  std::int64_t total = 0;
  for (int i = 0; i < search.grid_points; ++i) {
    total += simulated_horizon(gamma_at(setting, k.l, i), h, lambda_min) + 1;
  }
  return total;
}

SimulatedComplexity simulated_gradient_complexity(const Context& ctx, const std::string& claim_id,
                                                  const std::string& seed_key,
                                                  const theory::Problem& p, ComplexityMethod method,
                                                  const ComplexitySetting& setting,
                                                  const SimulatedSearch& search, const Vector& x0,
                                                  const std::vector<double>& epsilon2, double z) {
  const Algorithm a = algorithm_of(method);
  const theory::ProblemConstants k = theory::problem_constants(p);
  const double lambda_min = slowest_mean_rate(k.hessian_at_optimum);
  const int h = local_steps_of(method, setting);
  for (double e2 : epsilon2) {
    if (!(e2 < (x0 - k.x_star).squaredNorm())) {
      throw std::invalid_argument("simulated_gradient_complexity: ε² must be below ‖x₀ − x*‖²");
    }
  }
  const double per_round = setting.count == ComplexityCount::rounds
                               ? 1.0
                               : static_cast<double>(gradients_per_round(method, h));
  std::optional<theory::LinearSaProblem> twin;
  if (search.control_variate) {
    if (p.kind() != theory::ProblemKind::logistic) {
      throw std::invalid_argument(
          "simulated_gradient_complexity: the twin control variate is for logistic problems");
    }
    twin =
        theory::per_sample_linearisation(dynamic_cast<const theory::LogisticProblem&>(p), k.x_star);
  }
  SimulatedComplexity out;
  out.per_epsilon.assign(epsilon2.size(), CountBand{});
  std::vector<estimators::ReplicatedMean> gaps;
  const auto finish = [&] {
    const estimators::ReplicatedMean g = estimators::pooled_mean(gaps);
    out.twin_gap = g.mean;
    out.twin_gap_se = g.se;
    return out;
  };
  for (int i = 0; i < search.grid_points; ++i) {
    const double gamma = gamma_at(setting, k.l, i);
    const theory::RunSetting step{gamma, h};
    const int rounds = simulated_horizon(gamma, h, lambda_min);
    const std::uint64_t seed = kit::row_seed(ctx, claim_id, fmt::format("{} γ{}", seed_key, i));
    const int threads = kit::round_by_round_threads(ctx);
    std::vector<double> twin_curve;
    if (twin) {
      twin_curve =
          theory::mean_square_error(theory::exact_trajectory(*twin, a, step, x0, rounds), k.x_star);
    }
    const Trajectory tr =
        twin ? simulate_trajectory_with_twin(ctx, p, a, step, x0, k.x_star, twin_curve,
                                             search.chains, seed, threads)
             : simulate_trajectory(ctx, p, a, step, x0, k.x_star, search.chains, rounds, seed,
                                   threads);
    if (twin) gaps.push_back({tr.twin_gap, tr.twin_gap_se, search.chains - 1.0});
    ++out.curves;
    out.band_tests += static_cast<std::int64_t>(tr.mse.size());
    std::vector<double> lower(tr.mse.size()), upper(tr.mse.size());
    for (std::size_t t = 0; t < tr.mse.size(); ++t) {
      lower[t] = tr.mse[t] - z * tr.mse_se[t];
      upper[t] = tr.mse[t] + z * tr.mse_se[t];
    }
    bool stop = true;
    for (std::size_t j = 0; j < epsilon2.size(); ++j) {
      CountBand& c = out.per_epsilon[j];
      const int t_lower = rounds_to_reach(lower, epsilon2[j]);
      const int t_point = rounds_to_reach(tr.mse, epsilon2[j]);
      const int t_upper = rounds_to_reach(upper, epsilon2[j]);
      // Keeps the least count (the largest γ reaching it, as the exact search); true if it fell.
      auto improve = [&](double& best, int t) {
        const double g = t * per_round;
        if (t <= 0 || (best > 0 && g >= best)) return false;
        best = g;
        return true;
      };
      improve(c.lower, t_lower);
      improve(c.point, t_point);
      if (improve(c.upper, t_upper)) {
        c.gamma = gamma;
        c.rounds = t_upper;
      }
      // No smaller γ can beat the best certified count once this γ's lower count reaches it.
      stop = stop && c.upper > 0 && t_lower > 0 && t_lower * per_round >= c.upper;
    }
    if (stop) return finish();
  }
  out.exhausted = true;
  return finish();
}

}  // namespace fedverify::claims::dynamics
