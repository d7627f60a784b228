// Claim dynamics.scaffold-bound-shape, part (i): the stationary level E_π‖x − x*‖² of Scaffold
// scales like γ/N — measured ratios against the exact ones (THEORY S6), and the exact ratios
// within the first-order remainder of 2 (THEORY §8).
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "theory/closed_forms/bounds.hpp"
#include "theory/closed_forms/exact.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/dynamics/dynamics.hpp"
#include "verify/claims/dynamics/scaffold_bound_shape.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics::scaffold_bound {
namespace {

using theory::Algorithm;

// A stationary level E_π‖x − x*‖², measured and exact.
struct Level {
  std::string name;
  const theory::QuadraticProblem* problem;
  double gamma;
  estimators::ReplicatedMean measured;
  double exact = 0;
};

}  // namespace

bool add_level_ratio_rows(const Context& ctx, const theory::QuadraticProblem& q, double alpha,
                          ClaimResult& out) {
  const auto q2 = replicated_clients(q, 2);
  const Vector x_star = theory::expansion_coefficients(q).constants.x_star;
  const double l = q.smoothness();
  const int h = 2;
  const double gamma = 0.02 / l;
  // (i) Stationary level E_π‖x − x*‖² at (γ, N), (2γ, N), (γ, 2N).
  std::vector<Level> levels = {{"γ, N = 3", &q, gamma, {}, 0},
                               {"2γ, N = 3", &q, 2 * gamma, {}, 0},
                               {"γ, N = 6", &q2, gamma, {}, 0}};
  nlohmann::json level_data = nlohmann::json::array();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    auto& lv = levels[i];
    const theory::RunSetting step{lv.gamma, h};
    const auto ex = theory::scaffold_exact(*lv.problem, step);
    lv.exact = ex.x_cov().trace() + (ex.x_mean() - x_star).squaredNorm();
    StationaryRunSpec spec;
    spec.sampler = kit::sampler_options(ctx, Algorithm::scaffold, step,
                                        kit::row_seed(ctx, kId, "level " + lv.name));
    spec.chains = ctx.options.quick ? 20 * 16 : 20 * 128;
    spec.replications = 20;
    spec.rounds = ctx.options.quick ? 200 : 1600;
    spec.contraction = ex.spectral_radius;
    spec.start = x_star;
    const auto run = run_stationary(ctx, *lv.problem, spec);
    if (run.diverged) {
      out.rows.push_back(kit::diverged_row(lv.name, run.divergence));
      return false;
    }
    std::vector<double> reps;
    for (const auto& r : run.replicas)
      reps.push_back(r.cov.trace() + (r.mean - x_star).squaredNorm());
    lv.measured = estimators::replicated_mean(reps);
    level_data.push_back({{"setting", lv.name},
                          {"gamma", lv.gamma},
                          {"N", lv.problem->num_clients()},
                          {"level", lv.measured.mean},
                          {"level_se", lv.measured.se},
                          {"exact_level", lv.exact},
                          {"seed", spec.sampler.seed},
                          {"chains", spec.chains},
                          {"rounds", spec.rounds},
                          {"burn_in", run.burn_in}});
  }
  // Ratio tests: the measured ratio agrees with the exact one (z test, delta-method s.e. of a
  // ratio of independent runs), and the exact ratio is 2 up to the first-order remainder. THEORY
  // §8: the relative covariance remainder is ≈ γHL per level, so a ratio of two levels is within
  // the sum of their relative remainders of 2 (γ ratio: γHL + 2γHL; N ratio: 2γHL).
  auto ratio_row = [&](const Level& num, const Level& den, double allowance,
                       const std::string& what) {
    const double exact = num.exact / den.exact;
    const auto test = estimators::ratio_z_test(num.measured, den.measured, exact, alpha);
    Row row;
    row.setting = fmt::format("Scaffold, q-small, H = {}, γL = 0.02: level({}) / level({})", h,
                              num.name, den.name);
    row.predicted = fmt::format("2 ± {:.3f} ({}); exact {:.4f}", 2 * allowance, what, exact);
    row.measured = fmt::format("{:.4f} ± {:.4f} (z = {:.2f} vs exact)", test.estimate,
                               test.std_error, test.statistic);
    row.passed = test.passed && std::abs(exact - 2.0) <= 2.0 * allowance;
    row.data = {
        {"ratio", test.estimate}, {"ratio_se", test.std_error},      {"exact_ratio", exact},
        {"z", test.statistic},    {"allowance_relative", allowance}, {"alpha_per_test", alpha},
        {"levels", level_data}};
    kit::gate(row, "ratio", test.estimate, kit::kBaselineZ * test.std_error);
    kit::gate_exact(row, "exact_ratio", exact);
    kit::agreement(row, kMargin, "level ratio", {test.estimate, test.std_error, test.dof}, exact,
                   exact, test);
    out.rows.push_back(row);
  };
  const double ghl = gamma * h * l;
  ratio_row(levels[1], levels[0], 3 * ghl, "γ doubles");
  ratio_row(levels[0], levels[2], 2 * ghl, "N doubles");

  return true;
}

}  // namespace fedverify::claims::dynamics::scaffold_bound
