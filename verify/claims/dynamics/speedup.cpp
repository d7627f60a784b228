#include "verify/claims/dynamics/speedup.hpp"

#include <fmt/format.h>

#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::dynamics {
namespace {

using theory::Algorithm;

const std::vector<int> kSpeedupClients = {1, 2, 4, 8, 16};
const std::vector<Algorithm> kSpeedupAlgorithms = {Algorithm::fedavg, Algorithm::scaffold};
constexpr double kSpeedupGammaL = 0.1;  // γL, and H below: the (F2) remainder γHL = 0.2
constexpr int kSpeedupLocalSteps = 2;

// One curve of the speed-up figure: tr Cov_π · N/γ over N for one algorithm, its rows in `out`
// (one z test per N, then the slope of log tr Cov against log N, which must contain −1).
void speedup_curve(const Context& ctx, const SpeedupSetting& setting, Algorithm a, PlotSpec& plot,
                   bool first_curve, ClaimResult& out) {
  const double alpha = speedup_test_alpha();
  const double gamma_l = kSpeedupGammaL;
  const int h = kSpeedupLocalSteps;
  std::vector<double> nd, scaled, err2, predicted, first_scaled, traces;
  for (int n : kSpeedupClients) {
    const auto problem_ptr = setting.problem_for(n);
    const theory::Problem& problem = *problem_ptr;
    const theory::StepSetting step{gamma_l / problem.smoothness(), h};
    const theory::ExpansionCoefficients k = theory::expansion_coefficients(problem);
    const SpeedupPrediction p = setting.predict(a, problem, k, step);
    StationaryRunSpec spec;
    const std::string row_setting = fmt::format("{}, {}, N = {}, γL = {}, H = {}", setting.family,
                                                theory::to_string(a), n, gamma_l, h);
    spec.sampler = kit::sampler_options(ctx, a, step, kit::row_seed(ctx, setting.id, row_setting));
    spec.chains = ctx.options.quick ? 20 * 16 : 20 * 64;
    spec.replications = 20;
    spec.rounds = ctx.options.quick ? 200 : 1600;
    spec.contraction = contraction_near_optimum(k, step);
    spec.start = k.constants.x_star;
    spec.threads = ctx.options.threads;
    const StationaryRun run = run_stationary(problem, spec);
    if (run.diverged) {
      out.rows.push_back(kit::diverged_row(row_setting, run.divergence));
      continue;
    }
    const double scale = n / step.gamma;
    std::vector<double> reps;
    for (const auto& r : run.replicas) reps.push_back(r.cov.trace() * scale);
    const estimators::ReplicatedMean m = estimators::replicated_mean(reps);
    const auto test = estimators::z_agreement(m, p.value, p.allowance, alpha);
    Row row;
    row.setting = row_setting;
    row.predicted = p.text;
    row.measured = fmt::format("{:.4f} ± {:.4f} (z = {:.2f} beyond the allowance)", m.mean, m.se,
                               test.statistic);
    row.passed = test.passed;
    row.data = {{"N", n},
                {"gamma", step.gamma},
                {"H", h},
                {"scaled_trace", m.mean},
                {"scaled_trace_se", m.se},
                {"scaled_trace_replicas", reps},
                {"predicted_scaled_trace", p.value},
                {"allowance", p.allowance},
                {"first_order_scaled_trace", p.first_order},
                {"z", test.statistic},
                {"alpha_per_test", alpha},
                {"chains", spec.chains},
                {"replications", spec.replications},
                {"rounds", spec.rounds},
                {"burn_in", run.burn_in},
                {"seed", spec.sampler.seed},
                // For `--baseline`: ±kBaselineZ standard errors.
                {"value", m.mean},
                {"tolerance", kit::kBaselineZ * m.se}};
    kit::gate(row, "scaled_trace", m.mean, kit::kBaselineZ * m.se);
    kit::agreement(row, setting.margin, "tr Cov·N/γ", m, p.value, p.value, test);
    out.rows.push_back(row);
    nd.push_back(n);
    scaled.push_back(m.mean);
    err2.push_back(2 * m.se);
    predicted.push_back(p.value);
    first_scaled.push_back(p.first_order);
    traces.push_back(m.mean / scale);
  }
  if (nd.size() != kSpeedupClients.size()) return;
  // Slope of log tr Cov against log N: −1 for linear speed-up (the residuals are the Monte
  // Carlo errors of the five independent runs, so the t interval is a genuine one).
  const auto fit = estimators::fit_log_log_slope(nd, traces, alpha);
  const auto test = estimators::slope_interval_contains(fit, -1.0);
  Row row;
  row.setting = fmt::format("{}, {}, slope of log tr Cov_π against log N", setting.family,
                            theory::to_string(a));
  row.predicted = "−1";
  row.measured = fmt::format("{:.4f} [{:.4f}, {:.4f}] ({:.2f} % CI)", fit.slope, fit.lower,
                             fit.upper, 100 * (1 - alpha));
  row.passed = test.passed;
  row.data = {{"N", nd},
              {"trace", traces},
              {"slope", fit.slope},
              {"lower", fit.lower},
              {"upper", fit.upper},
              {"alpha", alpha}};
  kit::gate(row, "slope", fit.slope, kit::kBaselineZ * fit.std_error);
  kit::agreement(row, setting.slope_margin, "slope",
                 {fit.slope, fit.std_error, static_cast<double>(fit.n - 2)}, -1.0, 1.0, test);
  out.rows.push_back(row);
  const std::string name = theory::to_string(a);
  plot.series.push_back({name + " simulated (±2 s.e.)", nd, scaled, "linespoints", err2});
  if (predicted != first_scaled) {
    plot.series.push_back({name + " exact", nd, predicted, "lines dashtype 2"});
  }
  if (first_curve) {
    plot.series.push_back({"first order tr 𝒜C̄", nd, first_scaled, "lines lc rgb 'black'"});
  }
}

}  // namespace

double speedup_test_alpha() {
  return kFamilyAlpha /
         static_cast<double>(kSpeedupAlgorithms.size() * (kSpeedupClients.size() + 1));
}

ClaimResult run_speedup(const Context& ctx, const SpeedupSetting& setting) {
  ClaimResult out;
  PlotSpec plot{setting.title, "clients N", "tr Cov_π · N / γ", true, false, false, {}};
  for (Algorithm a : kSpeedupAlgorithms) {
    speedup_curve(ctx, setting, a, plot, a == kSpeedupAlgorithms.front(), out);
  }
  kit::add_figure(ctx, plot, setting.file, setting.caption, out);
  return out;
}

}  // namespace fedverify::claims::dynamics
