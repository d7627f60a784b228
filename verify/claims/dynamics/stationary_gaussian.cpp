// Claim dynamics.stationary-gaussian.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/regression.hpp"
#include "estimators/statistics/wasserstein.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.stationary-gaussian";

constexpr const char* kCard = R"(
Statement: The stationary law of FedAvg approaches the first-order Gaussian faster than its own
  spread √γ shrinks.
Formula: W2(π_γ, N(x* + γ(H−1)b_h + γb_s, (γ/N)𝒜C̄)) = o(√γ)
THEORY: (F2), (F3)
Setting: small_logistic() (d = 2, N = 4, minibatch 1; problems/dynamics_problems.hpp), FedAvg H = 1
  at γL ∈ {0.4, 0.2, 0.1, 0.05}; 20 replications of 16 (quick) or 128 chains over 50/(γλ_min) or
  400/(γλ_min) rounds. W2 is the Bures–Wasserstein distance between the Gaussian with the simulated
  moments and the first-order Gaussian (the prediction goes through kit::first_order, so a planted
  formula error reaches it).
Decision: Bures–W2 of the simulated Gaussian moments at 4 step sizes; one-sided z bound (jackknife
  over 20 replications) of the log–log slope above 0.5 at α = 0.01
Sample row:
  | logistic d = 2, N = 4, FedAvg H = 1, γL ∈ {0.4, 0.2, 0.1, 0.05} | slope of log W2 against
  log γ > 0.5 (W2 = o(√γ)) | slope 1.178 ± 0.196 (jackknife), one-sided lower 0.722; W2 =
  1.04e-02, 3.91e-03, 1.57e-03, 9.31e-04 | ✅ holds |
Notes: The jackknife is delete-one over the replications (estimators/statistics/decide.hpp (i)).
Margin: one-sided: the rule itself confirms slope > 0.5 with confidence 1 − α (the jackknife
  bound), so it is its own equivalence test; the MDE is relative to 0.5.
)";

using theory::Algorithm;

// W2 = o(√γ): the slope of log W2 against log γ must exceed this.
constexpr double kRequiredSlope = 0.5;

// Bures–W2 between the Gaussian with the pooled moments of `replicas` (all but `skip`) and N(m, S).
double pooled_bures(const std::vector<estimators::MomentEstimate>& replicas, int skip,
                    const Vector& m, const Matrix& s) {
  const int d = static_cast<int>(m.size());
  Vector mean = Vector::Zero(d);
  Matrix second = Matrix::Zero(d, d);
  double g = 0;
  for (int i = 0; i < static_cast<int>(replicas.size()); ++i) {
    if (i == skip) continue;
    mean += replicas[i].mean;
    second += replicas[i].cov + replicas[i].mean * replicas[i].mean.transpose();
    g += 1;
  }
  mean /= g;
  const Matrix cov = second / g - mean * mean.transpose();
  return estimators::bures_wasserstein(mean, cov, m, s);
}

// The 2σ ellipse of N(m, S): m + 2 S^{1/2} (cos θ, sin θ), 201 points.
Series ellipse(const Vector& m, const Matrix& s, const std::string& title) {
  Eigen::SelfAdjointEigenSolver<Matrix> es(s);
  const Matrix root = es.eigenvectors() * es.eigenvalues().cwiseMax(0).cwiseSqrt().asDiagonal() *
                      es.eigenvectors().transpose();
  std::vector<double> ex, ey;
  for (int i = 0; i <= 200; ++i) {
    const double th = 2 * std::numbers::pi * i / 200;
    Vector u(2);
    u << std::cos(th), std::sin(th);
    const Vector p = m + 2 * root * u;
    ex.push_back(p(0));
    ey.push_back(p(1));
  }
  return {title, ex, ey, "lines lw 2"};
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto lp = small_logistic();
  const auto k = theory::expansion_coefficients(lp);
  const double l = lp.smoothness();
  const std::vector<double> gamma_ls = {0.4, 0.2, 0.1, 0.05};
  const int h = 1;
  const double alpha = kFamilyAlpha;
  std::vector<double> gammas, w2s;
  std::vector<std::vector<double>> jack;  // [replica][γ]
  nlohmann::json per_gamma = nlohmann::json::array();
  const int g_reps = 20;
  jack.assign(g_reps, {});
  Matrix cloud;
  Vector cloud_mean;
  Matrix cloud_cov;
  for (std::size_t i = 0; i < gamma_ls.size(); ++i) {
    const theory::StepSetting step{gamma_ls[i] / l, h};
    const auto fo = kit::first_order(ctx, k, Algorithm::fedavg, step);
    const Vector bias = fo.mean - k.constants.x_star;
    // First-order covariance is about x*; the Gaussian's is about its mean.
    const Matrix fo_cov = fo.cov - bias * bias.transpose();
    // Contraction per round of the linearised chain: 1 − γ λ_min(𝐇).
    const double lmin =
        Eigen::SelfAdjointEigenSolver<Matrix>(k.constants.hessian_at_optimum).eigenvalues()(0);
    StationaryRunSpec spec;
    spec.sampler = kit::sampler_options(
        ctx, Algorithm::fedavg, step, kit::row_seed(ctx, kId, fmt::format("γL = {}", gamma_ls[i])));
    spec.chains = ctx.options.quick ? g_reps * 16 : g_reps * 128;
    spec.replications = g_reps;
    spec.rounds = static_cast<int>((ctx.options.quick ? 50 : 400) / (step.gamma * lmin));
    spec.contraction = 1.0 - step.gamma * lmin;
    spec.start = fo.mean;
    spec.threads = ctx.options.threads;
    const auto run = run_stationary(lp, spec);
    if (run.diverged) {
      out.rows.push_back(kit::diverged_row("logistic", run.divergence));
      return out;
    }
    const double w = pooled_bures(run.replicas, -1, fo.mean, fo_cov);
    gammas.push_back(step.gamma);
    w2s.push_back(w);
    for (int r = 0; r < g_reps; ++r)
      jack[r].push_back(pooled_bures(run.replicas, r, fo.mean, fo_cov));
    per_gamma.push_back({{"gamma", step.gamma},
                         {"w2", w},
                         {"w2_over_sqrt_gamma", w / std::sqrt(step.gamma)},
                         {"mean", kit::to_std(run.pooled.mean)},
                         {"predicted_mean", kit::to_std(fo.mean)},
                         {"cov_trace", run.pooled.cov.trace()},
                         {"predicted_cov_trace", fo_cov.trace()},
                         {"rounds", spec.rounds},
                         {"burn_in", run.burn_in},
                         {"chains", spec.chains},
                         {"seed", spec.sampler.seed}});
    if (i == 1) {  // the cloud for the figure: γL = 0.2
      cloud_mean = fo.mean;
      cloud_cov = fo_cov;
      cloud = stationary_sample(ctx, lp, step, fo.mean, ctx.options.quick ? 2000 : 4000,
                                run.burn_in, kit::row_seed(ctx, kId, "figure cloud"),
                                kit::round_by_round_threads(ctx));
    }
  }
  // Slope of log W2 against log γ, with a jackknife standard error over the replications.
  std::vector<double> lg;
  lg.reserve(gammas.size());
  for (double g : gammas) lg.push_back(std::log(g));
  auto slope_of = [&](const std::vector<double>& w) {
    std::vector<double> lw;
    lw.reserve(w.size());
    for (double v : w) lw.push_back(std::log(v));
    return estimators::fit_slope(lg, lw, alpha).slope;
  };
  std::vector<double> leave_one_out;
  leave_one_out.reserve(jack.size());
  for (const auto& w : jack) leave_one_out.push_back(slope_of(w));
  const auto test =
      estimators::jackknife_exceeds(slope_of(w2s), leave_one_out, kRequiredSlope, alpha);
  Row row;
  row.setting = fmt::format("logistic d = 2, N = 4, FedAvg H = 1, γL ∈ {{0.4, 0.2, 0.1, 0.05}}");
  row.predicted = "slope of log W2 against log γ > 0.5 (W2 = o(√γ))";
  std::string ws;
  for (std::size_t i = 0; i < w2s.size(); ++i) ws += fmt::format("{}{:.2e}", i ? ", " : "", w2s[i]);
  row.measured = fmt::format("slope {:.3f} ± {:.3f} (jackknife), one-sided lower {:.3f}; W2 = {}",
                             test.estimate, test.std_error, test.lower, ws);
  row.passed = test.passed;
  row.data = {{"slope", test.estimate}, {"slope_se_jackknife", test.std_error},
              {"lower", test.lower},    {"alpha", alpha},
              {"per_gamma", per_gamma}, {"problem_seed", kSmallLogisticSeed}};
  kit::gate(row, "slope", test.estimate, kit::kBaselineZ * test.std_error);
  kit::confirmation(row, "slope > 0.5", test, kRequiredSlope);  // the rule confirms: one-sided
  out.rows.push_back(row);

  if (ctx.figures && cloud.cols() > 0) {
    PlotSpec plot{"Stationary cloud of FedAvg (logistic d = 2, γL = 0.2, H = 1)",
                  "x₁",
                  "x₂",
                  false,
                  false,
                  true,
                  {}};
    std::vector<double> px, py;
    for (int j = 0; j < cloud.cols(); ++j) {
      px.push_back(cloud(0, j));
      py.push_back(cloud(1, j));
    }
    plot.series.push_back({"stationary chains", px, py, "dots"});
    plot.series.push_back(ellipse(cloud_mean, cloud_cov, "first-order Gaussian, 2σ"));
    kit::add_figure(ctx, plot, "stationary-gaussian-cloud.svg",
                    "Stationary FedAvg chains on logistic d = 2 (γL = 0.2) with the 2σ ellipse of "
                    "the first-order Gaussian N(x* + γb_s, (γ/N)𝒜C̄).",
                    out);
  }
  return out;
}

const bool registered =
    register_claim({.id = kId, .order = {Section::dynamics, 5}, .card = kCard, .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
