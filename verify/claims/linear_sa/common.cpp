#include "verify/claims/linear_sa/common.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::linear_sa {

theory::ExactMoments exact(const theory::LinearSaProblem& problem, theory::Algorithm algorithm,
                           const theory::RunSetting& step) {
  const std::optional<theory::ExactMoments> m =
      theory::algorithm_theory(algorithm).exact_linear_sa(problem, step);
  if (!m) {
    throw std::logic_error("linear-sa claims: no exact moments for " +
                           theory::to_string(algorithm));
  }
  return *m;
}

std::vector<double> step_grid(double l, bool quick) {
  const int points = quick ? 4 : 7;
  std::vector<double> out;
  for (int i = 0; i < points; ++i) {
    const double gamma_l = 1e-3 * std::pow(100.0, static_cast<double>(i) / (points - 1));
    out.push_back(gamma_l / l);
  }
  return out;
}

double round_off_zero(const theory::LinearSaProblem& problem) {
  return 1e-9 * (problem.solution().norm() + 1.0);
}

CardValues simulation_card_values(double alpha) {
  return {{"replications", kSimulationReplications},
          {"chains", kSimulationChains},
          {"rounds", "2000 (quick) or 4000"},
          {"alpha", alpha},
          {"margin", kSimulationMargin}};
}

namespace {

StationaryRunSpec simulation_budget(const Context& ctx) {
  StationaryRunSpec spec;
  spec.replications = kSimulationReplications;
  spec.chains = kSimulationReplications * kSimulationChains;
  spec.rounds = ctx.options.quick ? 2000 : 4000;
  // Started at the exact mean, only the covariance has a transient, ρ^{2t} from 0: ρ^t ≤ 1e-3
  // leaves 1e-6 of it.
  spec.burn_in_residual = 1e-3;
  return spec;
}

}  // namespace

Row simulated_row(const Context& ctx, const char* claim_id, const NamedProblem& np,
                  theory::Algorithm algorithm, const theory::RunSetting& step, double alpha) {
  StationaryRunSpec budget = simulation_budget(ctx);
  const theory::LinearSaProblem& p = as_linear_sa(np);
  const theory::ExactMoments ex = exact(p, algorithm, step);
  const auto k = theory::expansion_coefficients(p);
  const std::string setting =
      fmt::format("{}, {}, H = {}, γL = {:g}, simulated", np.name, theory::to_string(algorithm),
                  step.local_steps, step.gamma * p.smoothness());
  budget.sampler =
      kit::sampler_options(ctx, algorithm, step, kit::row_seed(ctx, claim_id, setting));
  budget.contraction = contraction_near_optimum(k, step);
  budget.start = ex.mean;
  const StationaryRun run = run_stationary(ctx, p, budget);
  if (run.diverged) return kit::diverged_row(setting, run.divergence);
  Row row = exact_moments_row(run, ex.mean, ex.cov, kSimulationMargin, alpha);
  row.setting = setting;
  row.predicted = "exact mean and covariance (THEORY (L1))";
  row.data["problem"] = np.name;
  row.data["exact_mean"] = kit::to_std(ex.mean);
  kit::gate_simulated(row, "mean", run.pooled.mean, run.pooled.mean_mcse);
  return row;
}

}  // namespace fedverify::claims::linear_sa
