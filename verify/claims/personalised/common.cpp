#include "verify/claims/personalised/common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "theory/problems/optimum.hpp"
#include "verify/claims/problems/personalised_problems.hpp"

namespace fedverify::claims::personalised {

const theory::QuadraticProblem& rate_quadratic() {
  static const auto q = make_quadratic(kQuadClients, kQuadDim, kQuadMu, kQuadL, kQuadSeed);
  return q;
}
const theory::LogisticProblem& rate_logistic() {
  static const auto p = make_logistic(kLogClients, kLogSamples, kLogDim, kLogL2, kLogSeed);
  return p;
}
std::string quadratic_name() {
  return fmt::format("quadratic n = {}, d = {}, μ = {}, L = {} (seed {})", kQuadClients, kQuadDim,
                     kQuadMu, kQuadL, kQuadSeed);
}
std::string logistic_name() {
  return fmt::format("logistic n = {}, m = {}, d = {}, l2 = {} (seed {})", kLogClients, kLogSamples,
                     kLogDim, kLogL2, kLogSeed);
}

std::string alpha_factor_name(double c, bool gnuplot) {
  std::string a = gnuplot ? "α_{max}" : "α_max";
  if (c == 1.0) return a;
  return c < 1.0 ? fmt::format("{}/{:g}", a, 1.0 / c) : fmt::format("{:g}{}", c, a);
}

const char* figure_colour(std::size_t i) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  return colours[i % 4];
}

std::vector<double> with_p_star(const std::vector<double>& ps, double p_star) {
  std::vector<double> out{p_star};
  for (double p : ps) {
    if (std::abs(p - p_star) > 1e-9) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json rate_row_json(const char* problem, const theory::L2gdSetting& s, double alpha_factor,
                             const theory::L2gdConstants& k, int iterations, double worst_ratio,
                             int worst_k, double tolerance) {
  const bool quadratic = std::string(problem) == "quadratic";
  return {{"problem", problem},
          {"problem_seed", quadratic ? kQuadSeed : kLogSeed},
          {"lambda", s.lambda},
          {"p", s.p},
          {"alpha", s.alpha},
          {"alpha_max", k.alpha_max},
          {"alpha_factor", alpha_factor},
          {"rate", k.rate},
          {"neighbourhood", k.neighbourhood},
          {"iterations", iterations},
          {"worst_ratio", worst_ratio},
          {"worst_k", worst_k},
          {"value", worst_ratio},
          {"tolerance", tolerance}};
}

int gradient_descent_iterations(const theory::QuadraticProblem& q, double relative_eps) {
  const Vector x_star = theory::minimizer(q);
  Vector x = Vector::Zero(q.dim());
  int k = 0;
  while ((x - x_star).squaredNorm() > relative_eps * x_star.squaredNorm()) {
    x -= theory::average_gradient(q, x) / q.smoothness();
    ++k;
  }
  return k;
}

}  // namespace fedverify::claims::personalised
