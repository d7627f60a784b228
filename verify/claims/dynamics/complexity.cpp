#include "verify/claims/dynamics/complexity.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/dynamics/common.hpp"

namespace fedverify::claims::dynamics {
namespace {

using theory::Algorithm;

// E‖x_t − x*‖² for t = 0 … rounds: THEORY (T1); FedRR's χ_t = 2x_t(γ) − x_t(2γ) from two
// independent FedAvg runs ((R2) at every t).
std::vector<double> curve(const theory::QuadraticProblem& q, ComplexityMethod m,
                          const theory::RunSetting& step, const Vector& x0, const Vector& x_star,
                          int rounds) {
  switch (m) {
    case ComplexityMethod::fedavg:
    case ComplexityMethod::minibatch_sgd:
      return theory::mean_square_error(
          theory::exact_trajectory(q, Algorithm::fedavg, step, x0, rounds), x_star);
    case ComplexityMethod::scaffold:
      return theory::mean_square_error(
          theory::exact_trajectory(q, Algorithm::scaffold, step, x0, rounds), x_star);
    case ComplexityMethod::fedrr: {
      const theory::RunSetting twice{2 * step.gamma, step.local_steps};
      return theory::mean_square_error(
          theory::richardson_trajectory(
              theory::exact_trajectory(q, Algorithm::fedavg, step, x0, rounds),
              theory::exact_trajectory(q, Algorithm::fedavg, twice, x0, rounds)),
          x_star);
    }
  }
  throw std::logic_error("gradient_complexity: unknown method");
}

}  // namespace

double grid_allowance(int fewest_rounds) {
  return std::log(std::pow(2.0, 1.0 / 8.0) * (1.0 + 1.0 / std::max(1, fewest_rounds)));
}

int speedup_end(const std::vector<int>& clients, const std::vector<double>& counts) {
  constexpr double kLeastSaving = -0.58;  // log₂(2/3): the doubling saves less than a third
  for (std::size_t i = 0; i + 1 < clients.size(); ++i) {
    const double a = counts[i], b = counts[i + 1];
    if (a > 0 && b > 0 && std::log2(b / a) > kLeastSaving) return clients[i];
  }
  return 0;
}

int gradients_per_round(ComplexityMethod m, int h) {
  switch (m) {
    case ComplexityMethod::fedrr:
      return 2 * h;
    case ComplexityMethod::minibatch_sgd:
      return 1;
    default:
      return h;
  }
}

std::string to_string(ComplexityMethod m) {
  switch (m) {
    case ComplexityMethod::fedavg:
      return "FedAvg";
    case ComplexityMethod::scaffold:
      return "Scaffold";
    case ComplexityMethod::fedrr:
      return "FedRR";
    case ComplexityMethod::minibatch_sgd:
      return "minibatch SGD";
  }
  return "?";
}

Complexity gradient_complexity(const theory::QuadraticProblem& q, ComplexityMethod method,
                               const ComplexitySetting& setting, const Vector& x0,
                               const std::vector<double>& epsilon2) {
  const theory::ProblemConstants k = theory::problem_constants(q);
  const double lambda_min = slowest_mean_rate(k.hessian_at_optimum);
  const int h = method == ComplexityMethod::minibatch_sgd ? 1 : setting.local_steps;
  const double gamma_max = setting.gamma_max_l / k.l / (method == ComplexityMethod::fedrr ? 2 : 1);
  const auto m = epsilon2.size();
  Complexity out;
  out.gradients.assign(m, 0.0);
  out.gamma.assign(m, 0.0);
  out.rounds.assign(m, 0);
  std::vector<int> since_best(m, 0);
  constexpr int kPatience = 8;         // grid points (ratio 2^{1/8}: one halving of γ)
  constexpr int kMaxGridPoints = 200;  // γ_max·2^{−25}: far below any step the claims need
  for (int i = 0; i < kMaxGridPoints; ++i) {
    const double gamma = gamma_max * std::pow(2.0, -i / 8.0);
    const theory::RunSetting step{gamma, h};
    const int rounds = static_cast<int>(std::ceil(10.0 / (h * gamma * lambda_min)));
    const std::vector<double> e = curve(q, method, step, x0, k.x_star, rounds);
    ++out.curves;
    bool done = true;
    for (std::size_t j = 0; j < m; ++j) {
      ++since_best[j];
      if (e.back() < epsilon2[j]) {
        int last_above = -1;
        for (int t = rounds; t >= 0; --t) {
          if (e[t] > epsilon2[j]) {
            last_above = t;
            break;
          }
        }
        const double per_round = setting.count == ComplexityCount::rounds
                                     ? 1.0
                                     : static_cast<double>(gradients_per_round(method, h));
        const double g = static_cast<double>(last_above + 1) * per_round;
        if (out.gradients[j] == 0 || g < out.gradients[j]) {
          out.gradients[j] = g;
          out.gamma[j] = gamma;
          out.rounds[j] = last_above + 1;
          since_best[j] = 0;
        }
      }
      done = done && out.gradients[j] > 0 && since_best[j] >= kPatience;
    }
    if (done) break;
  }
  return out;
}

}  // namespace fedverify::claims::dynamics
