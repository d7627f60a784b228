#include "verify/claims/personalised/common.hpp"

#include <fmt/format.h>

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

}  // namespace fedverify::claims::personalised
