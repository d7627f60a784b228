// The shared pieces of claim optimisers.reshuffled-epochs (THEORY (A4)) and its simulated row on
// a problem too large to enumerate; see reshuffled_epochs_rows.hpp.
#include "verify/claims/optimisers/reshuffled_epochs_rows.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/problems/optimiser.hpp"
#include "verify/claims/kit/error_slope.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/epochs_problems.hpp"

namespace fedverify::claims::optimisers {

namespace {

constexpr theory::Algorithm kFedopt{"fedopt"};

}  // namespace

theory::RunSetting epochs_setting(double gamma, int steps, double server_lr) {
  theory::RunSetting s{gamma, steps};
  if (server_lr != 1.0) {
    s.server = theory::parse_optimiser(fmt::format("sgd:lr={:.17g}", server_lr),
                                       theory::OptimiserRole::server);
  }
  return s;
}

double fixed_eta_server_lr(const theory::LinearSaProblem& p, double eta, double gamma, int steps) {
  return eta / (gamma * p.smoothness() * steps);
}

// ls-epochs-large: N = 10 clients of n_c = 32 rows in d = 8, H = 32 (2³² sets a pass: simulated
// only). At fixed η, E‖x − x*‖² at γL = 0.02 and 0.01 for both orders.
Row scale_law_row(const Context& ctx, const char* claim_id, double eta, bool with_replacement,
                  double alpha) {
  constexpr int kLargeClients = 10, kLargeSamples = 32, kLargeDim = 8;
  const theory::LinearSaProblem rr =
      ls_epochs_problem(theory::SampleOrder::reshuffled, kLargeClients, kLargeSamples, kLargeDim);
  const theory::LinearSaProblem rep = ls_epochs_problem(theory::SampleOrder::with_replacement,
                                                        kLargeClients, kLargeSamples, kLargeDim);
  const std::string name = fmt::format(
      "ls-epochs-large (N = 10, n_c = 32, d = 8), H = 32, ηL = {}, γL = 0.02 and 0.01, simulated",
      eta);
  std::vector<std::vector<double>> errors;  // rr at 2γ, rr at γ, rep at 2γ, rep at γ
  nlohmann::json runs = nlohmann::json::array();
  for (const auto* problem : {&rr, &rep}) {
    for (const double gl : {0.02, 0.01}) {
      const double gamma = gl / rr.smoothness();
      const double lr = fixed_eta_server_lr(rr, eta, gamma, kLargeSamples);
      const theory::RunSetting s = epochs_setting(gamma, kLargeSamples, lr);
      const std::string key = fmt::format("{} {} {}", name, problem == &rr ? "rr" : "rep", gl);
      StationaryRunSpec spec;
      spec.replications = 20;
      spec.chains = spec.replications * (ctx.options.quick ? 8 : 16);
      spec.rounds = ctx.options.quick ? 1000 : 2000;
      spec.sampler = kit::sampler_options(ctx, kFedopt, s, kit::row_seed(ctx, claim_id, key));
      // The with-replacement law's contraction (the mean maps differ at O(γ²) only).
      spec.contraction = theory::fedopt_exact_lsa(rep, s).spectral_radius;
      spec.start = rr.solution();
      spec.burn_in_residual = 1e-3;
      const bool simulate_rep = problem == &rep || with_replacement;
      const StationaryRun run = run_stationary(ctx, simulate_rep ? rep : rr, spec);
      if (run.diverged) return kit::diverged_row(name, run.divergence);
      errors.push_back(kit::replication_errors(run, rr.solution()));
      runs.push_back({{"order", problem == &rr ? "reshuffled" : "with-replacement"},
                      {"gamma", gamma},
                      {"server_lr", lr},
                      {"mse", kit::mean_error(errors.back())},
                      {"chains", spec.chains},
                      {"rounds", spec.rounds},
                      {"burn_in", run.burn_in},
                      {"seed", spec.sampler.seed}});
    }
  }
  // Reshuffled: confirm slope > 1; with replacement: confirm slope < 1.
  const auto test_rr =
      kit::error_slope_test(errors[1], errors[0], 0.01, 0.02, 1.0, true, alpha / 2);
  const auto test_rep =
      kit::error_slope_test(errors[3], errors[2], 0.01, 0.02, 1.0, false, alpha / 2);
  Row row;
  row.setting = name;
  row.predicted =
      "(A4): E‖x − x*‖² falls like γ² reshuffled (slope > 1), has a floor with "
      "replacement (slope < 1)";
  row.measured = fmt::format(
      "slopes {:.3f} ± {:.3f} reshuffled, {:.3f} ± {:.3f} with replacement (jackknife); at "
      "γL = 0.01 E‖x − x*‖² is {:.2e} reshuffled, {:.2e} with replacement",
      test_rr.estimate, test_rr.std_error, -test_rep.estimate, test_rep.std_error,
      kit::mean_error(errors[1]), kit::mean_error(errors[3]));
  row.passed = test_rr.passed && test_rep.passed;
  row.data = {{"slope_reshuffled", test_rr.estimate},
              {"slope_reshuffled_se", test_rr.std_error},
              {"slope_replacement", -test_rep.estimate},
              {"slope_replacement_se", test_rep.std_error},
              {"alpha", alpha},
              {"runs", runs}};
  kit::gate(row, "slope_reshuffled", test_rr.estimate, kit::kBaselineZ * test_rr.std_error);
  kit::confirmation(row, "reshuffled slope > 1", test_rr, 1.0);
  kit::confirmation(row, "with-replacement slope < 1", test_rep, -1.0);
  return row;
}

}  // namespace fedverify::claims::optimisers
