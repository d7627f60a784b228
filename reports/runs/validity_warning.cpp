#include "reports/runs/validity_warning.hpp"

#include <fmt/format.h>

namespace fedverify::reports {

std::string first_order_validity_warning(const theory::Problem& problem,
                                         const theory::RunSetting& step) {
  const double l = problem.smoothness();
  const double gamma_hl = step.gamma * static_cast<double>(step.local_steps) * l;
  if (!(gamma_hl > kMaxGammaHL)) return {};
  const bool exact = problem.kind() == theory::ProblemKind::quadratic;
  return fmt::format(
      "warning: gamma*H*L = {:.3g} (gamma = {:g}, H = {}, L = {:.3g}) is beyond {:g}, where the "
      "first-order expansion holds: the *_first_order fields and the biases are not the "
      "algorithm's behaviour here{} (docs/CLI.md, predict: validity warning)",
      gamma_hl, step.gamma, step.local_steps, l, kMaxGammaHL,
      exact ? "; mean_exact and cov_exact are exact at any gamma with a stationary law" : "");
}

}  // namespace fedverify::reports
