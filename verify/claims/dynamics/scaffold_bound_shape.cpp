// Claim dynamics.scaffold-bound-shape.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "theory/closed_forms/bounds.hpp"
#include "theory/closed_forms/exact.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.scaffold-bound-shape";

// Equivalence margin of the level ratios (relative to the exact ratio), declared in the card.
constexpr double kMargin = 0.05;

constexpr const char* kCard = R"(
Statement: Scaffold's finite-time bound has the predicted shape: its stationary level scales like
  γ/N and its transient decays at least like (1 − γμ/4)^{Ht}.
Formula: E‖x_T − x*‖² ≲ (1 − γμ/4)^{HT} {‖x₀ − x*‖² + 2γ²H²ζ² + σ*²/(Lμ)} + γσ*²/(Nμ) + …
THEORY: (S5)
Setting: q-small (d = 2, N = 3) and the same problem with every client duplicated (N = 6). (i)
  Stationary level E_π‖x − x*‖² at (γ, N = 3), (2γ, N = 3), (γ, N = 6), γL = 0.02, H = 2: 20
  replications of 16 (quick) or 128 chains. (ii) Transient from x₀ = x* + 5·1 at γL = 0.05, H = 5:
  500 (quick) or 4000 chains over 300 or 600 rounds, and the exact E‖x_t − x*‖² from the stacked
  linear-Gaussian chain (S6).
Decision: level ratios (γ doubled, N doubled): z test against the exact ratio (α = 0.005 each) and
  exact ratio within 2(1 ± remainder allowance 3γHL or 2γHL); transient: smallest C reported and
  finite, decay rate of E_t − E_∞ per local step ≥ −log(1 − γμ/4) on the exact curve and inside or
  below the simulated fit's interval (one-sided)
Sample row:
  | Scaffold, q-small, H = 2, γL = 0.02: level(γ, N = 3) / level(γ, N = 6) |
  2 ± 0.160 (N doubles); exact 2.0000 | 2.0509 ± 0.0582 (z = 0.88 vs exact) | ✅ holds |
Notes: The bound is theory/closed_forms/bounds.hpp; the ratio test is the two-sided z test of
  estimators/statistics/decide.hpp (f); the allowances are the first-order remainders of the two
  ratios; C is the smallest constant with E_t ≤ C·bound(t).
Margin: level ratios, δ = ${margin} (relative) of the exact ratio: the comparison is with the
  exact stacked chain (S6), so there is no remainder; δ is the resolution that matters. Transient:
  one-sided, the simulated decay rate must exceed −log(1 − γμ/4) with confidence 1 − α.
)";

using theory::Algorithm;

// Exact E‖x_t − x*‖² of Scaffold from x_0 (ξ_c = 0) by propagating the mean and covariance of
// the stacked linear-Gaussian chain (THEORY S6): m ← T m + γ r, P ← T P Tᵀ + γ G.
std::vector<double> exact_scaffold_mse(const theory::QuadraticProblem& q,
                                       const theory::StepSetting& step, const Vector& x0,
                                       const Vector& x_star, int rounds) {
  const auto map = theory::scaffold_round_map(q, step);
  const int d = q.dim();
  const Matrix t = map.transition();
  Vector m = Vector::Zero(t.rows());
  m.head(d) = x0;
  Matrix p = Matrix::Zero(t.rows(), t.cols());
  std::vector<double> mse;
  for (int r = 0; r <= rounds; ++r) {
    mse.push_back((m.head(d) - x_star).squaredNorm() + p.topLeftCorner(d, d).trace());
    m = t * m + map.gamma * map.r;
    p = t * p * t.transpose() + map.gamma * map.g;
  }
  return mse;
}

// Mean over chains of ‖x_t − x*‖² and of ‖x_t − x*‖ along rounds 0..rounds, with the standard
// error of the former across chains.
struct Trajectory {
  std::vector<double> mse, mse_se, mean_norm;
  std::vector<double> bias_norm;  // ‖mean over chains of x_t − x*‖: the noise averages out
};
Trajectory simulate_trajectory(const Context& ctx, const theory::Problem& q, Algorithm a,
                               const theory::StepSetting& step, const Vector& x0,
                               const Vector& x_star, int chains, int rounds, std::uint64_t seed,
                               int threads) {
  Trajectory tr;
  auto record = [&](const estimators::ChainEnsemble& e) {
    const Matrix dev = e.state().colwise() - x_star;
    const Eigen::ArrayXd sq = dev.colwise().squaredNorm().transpose().array();
    const double m = sq.mean();
    tr.mse.push_back(m);
    const double k = static_cast<double>(sq.size());
    tr.mse_se.push_back(std::sqrt((sq - m).square().sum() / (k - 1.0) / k));
    tr.mean_norm.push_back(sq.sqrt().mean());
    tr.bias_norm.push_back(dev.rowwise().mean().norm());
    return true;
  };
  estimators::ChainEnsemble e(q, kit::sampler_options(ctx, a, step, seed), x0, chains);
  record(e);
  e.advance(rounds, threads, record);
  return tr;
}

// A stationary level E_π‖x − x*‖², measured and exact.
struct Level {
  std::string name;
  const theory::QuadraticProblem* problem;
  double gamma;
  estimators::ReplicatedMean measured;
  double exact = 0;
};

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto& q = as_quadratic(default_quadratic_problems().front());
  const auto q2 = replicated_clients(q, 2);
  const auto k = theory::expansion_coefficients(q);
  const Vector& x_star = k.constants.x_star;
  const double mu = q.strong_convexity(), l = q.smoothness();
  const int h = 2;
  const double gamma = 0.02 / l;
  const double alpha = kFamilyAlpha / 2.0;  // two ratio tests (γ and N)

  // (i) Stationary level E_π‖x − x*‖² at (γ, N), (2γ, N), (γ, 2N).
  std::vector<Level> levels = {{"γ, N = 3", &q, gamma, {}, 0},
                               {"2γ, N = 3", &q, 2 * gamma, {}, 0},
                               {"γ, N = 6", &q2, gamma, {}, 0}};
  nlohmann::json level_data = nlohmann::json::array();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    auto& lv = levels[i];
    const theory::StepSetting step{lv.gamma, h};
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
    spec.threads = ctx.options.threads;
    const auto run = run_stationary(*lv.problem, spec);
    if (run.diverged) {
      out.rows.push_back(kit::diverged_row(lv.name, run.divergence));
      return out;
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

  // (ii) Transient from a far start: the smallest C with E‖x_t − x*‖² ≤ C·bound(t), and the
  // decay rate of the transient E_t − E_∞ per local step.                       THEORY (S5)
  const double gamma_t = 0.05 / l;
  const int h_t = 5;
  const theory::StepSetting step_t{gamma_t, h_t};
  const Vector x0 = x_star + Vector::Constant(q.dim(), 5.0);
  const double sigma2 = k.constants.sigma_star2, zeta2 = k.constants.zeta2;
  const theory::ScaffoldFiniteTimeBound bound = theory::scaffold_finite_time_bound(
      step_t, mu, l, zeta2, sigma2, q.num_clients(), (x0 - x_star).squaredNorm());
  const int rounds = ctx.options.quick ? 300 : 600;
  const int chains = ctx.options.quick ? 500 : 4000;
  std::vector<Trajectory> trajs;
  const std::vector<Algorithm> algos = {Algorithm::scaffold, Algorithm::fedavg, Algorithm::fedrr};
  for (std::size_t i = 0; i < algos.size(); ++i) {
    trajs.push_back(
        simulate_trajectory(ctx, q, algos[i], step_t, x0, x_star, chains, rounds,
                            kit::row_seed(ctx, kId, "trajectory " + theory::to_string(algos[i])),
                            kit::round_by_round_threads(ctx)));
  }
  const auto& sc = trajs.front();
  const auto exact = exact_scaffold_mse(q, step_t, x0, x_star, rounds);
  const double e_inf = [&] {
    const auto ex = theory::scaffold_exact(q, step_t);
    return ex.x_cov().trace() + (ex.x_mean() - x_star).squaredNorm();
  }();
  double c_sim = 0, c_exact = 0, c_sim_se = 0;
  for (int t = 0; t <= rounds && t < static_cast<int>(sc.mse.size()); ++t) {
    if (sc.mse[t] / bound.at(t) > c_sim) c_sim_se = sc.mse_se[t] / bound.at(t);
    c_sim = std::max(c_sim, sc.mse[t] / bound.at(t));
    c_exact = std::max(c_exact, exact[t] / bound.at(t));
  }
  // Decay rate of the transient: fit log(E_t − E_∞) against the local-step count Ht over the
  // rounds where the transient is resolved — exact curve: above 1e-8 of its start (round-off of
  // E_t is ~1e-16 of E_0); simulated curve: above 5 standard errors.
  auto rate_fit = [&](const std::vector<double>& e, const std::vector<double>* se) {
    std::vector<double> x, y;
    for (std::size_t t = 1; t < e.size(); ++t) {
      const double tr = e[t] - e_inf;
      const bool resolved = se ? tr > 5 * (*se)[t] : tr > 1e-8 * (e[0] - e_inf);
      if (!resolved) break;
      x.push_back(static_cast<double>(h_t * t));
      y.push_back(std::log(tr));
    }
    return x.size() >= 3 ? estimators::fit_slope(x, y, alpha) : estimators::SlopeEstimate{};
  };
  const auto fit_exact = rate_fit(exact, nullptr);
  const auto fit_sim = rate_fit(sc.mse, &sc.mse_se);
  const double required = bound.rate();  // per local step, squared distance
  {
    Row row;
    row.setting =
        fmt::format("Scaffold, q-small, γL = 0.05, H = {}, x₀ = x* + 5·1, {} chains, {} rounds",
                    h_t, chains, rounds);
    row.predicted = fmt::format(
        "finite C; decay rate of E_t − E_∞ ≥ −log(1 − γμ/4) = {:.3e} per step", required);
    row.measured = fmt::format(
        "C = {:.3f} (exact curve {:.3f}); rate exact {:.3e}, simulated {:.3e} [{:.3e}, {:.3e}] "
        "over "
        "{} rounds",
        c_sim, c_exact, -fit_exact.slope, -fit_sim.slope, -fit_sim.upper, -fit_sim.lower,
        fit_sim.n);
    // The exact curve decides the rate (no Monte Carlo error); the simulated fit must agree with
    // the bound at the one-sided level α: its upper slope bound below −required.
    row.passed = std::isfinite(c_sim) && c_sim > 0 && fit_exact.n >= 3 &&
                 -fit_exact.slope >= required && fit_sim.n >= 3 && -fit_sim.lower >= required;
    row.data = {{"C", c_sim},
                {"C_exact_curve", c_exact},
                {"B0", bound.initial},
                {"floor_term", bound.stationary},
                {"rho", bound.rho},
                {"rate_required", required},
                {"rate_exact", -fit_exact.slope},
                {"rate_simulated", -fit_sim.slope},
                {"rate_simulated_ci", {-fit_sim.upper, -fit_sim.lower}},
                {"E_inf_exact", e_inf},
                {"mu", mu},
                {"L", l},
                {"gamma", gamma_t},
                {"H", h_t},
                {"sigma_star2", sigma2},
                {"zeta2", zeta2},
                {"chains", chains},
                {"rounds", rounds},
                {"seed", kit::row_seed(ctx, kId, "trajectory scaffold")},
                {"mse_simulated", sc.mse},
                {"mse_exact", exact}};
    kit::gate(row, "C", c_sim, kit::kBaselineZ * c_sim_se);
    kit::gate_exact(row, "C_exact_curve", c_exact);
    kit::gate_exact(row, "rate_exact", -fit_exact.slope);
    kit::gate(row, "rate_simulated", -fit_sim.slope, kit::kBaselineZ * fit_sim.std_error);
    // One-sided: the simulated decay rate exceeds the required one with confidence 1 − α (the
    // rule only asks that it is not significantly below). MDE of the fit's two-sided interval.
    if (fit_sim.n >= 3) {
      const estimators::ReplicatedMean rate{-fit_sim.slope, fit_sim.std_error,
                                            static_cast<double>(fit_sim.n - 2)};
      const auto tost = estimators::equivalence_test(
          rate, required, std::numeric_limits<double>::infinity(), alpha);
      // The rule's critical value: its interval is the fit's two-sided one, t_{1−α/2, n−2}.
      const double critical = estimators::slope_interval_contains(fit_sim, -required).threshold;
      kit::add_equivalence(
          row, 0.0, tost.passed, "simulated decay rate > required: " + tost.description,
          estimators::minimum_detectable_error(critical, rate.dof, rate.se, 0.0, kit::kPower) /
              required);
    } else {
      kit::add_equivalence(row, 0.0, false, "simulated decay rate: fewer than 3 resolved rounds",
                           std::numeric_limits<double>::infinity());
    }
    out.rows.push_back(row);
  }
  std::vector<double> rr;
  rr.reserve(sc.mean_norm.size());
  for (int t = 0; t < static_cast<int>(sc.mean_norm.size()); ++t) rr.push_back(t);
  PlotSpec plot{"q-small, γL = 0.05, H = 5: ‖E[x_t] − x*‖ (mean over chains)",
                "round t",
                "‖E[x_t] − x*‖",
                false,
                true,
                false,
                {}};
  for (std::size_t i = 0; i < algos.size(); ++i) {
    plot.series.push_back({theory::to_string(algos[i]), rr, trajs[i].bias_norm, "lines"});
  }
  out.note = fmt::format(
      "Final mean ‖x_t − x*‖ after {} rounds: Scaffold {:.4f}, FedAvg {:.4f}, FedRR {:.4f}.",
      rounds, trajs[0].mean_norm.back(), trajs[1].mean_norm.back(), trajs[2].mean_norm.back());
  kit::add_figure(ctx, plot, "scaffold-fedavg-fedrr-trajectories.svg",
                  "‖E[x_t] − x*‖ (ensemble mean over chains) from x₀ = x* + 5·1 on q-small (log "
                  "y): FedAvg plateaus at its heterogeneity bias; Scaffold and FedRR go on down "
                  "to the Monte Carlo floor ≈ spread/√K of the ensemble mean.",
                  out);
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::dynamics, 3},
                                        .card = kCard,
                                        .values = {{"margin", kMargin}},
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
