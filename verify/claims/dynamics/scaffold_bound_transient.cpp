// Claim dynamics.scaffold-bound-shape, part (ii): Scaffold's transient from a far start decays
// at the rate of the (S1) contraction (THEORY S5, S1), and the simulated E‖x_t − x*‖² follows the
// exact one of the stacked linear-Gaussian chain (THEORY S6) round by round.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

// The equivalence part of the transient row (kit/verdict.hpp): the simulated E_t within ±δ of the
// exact E_t at every compared round, two one-sided z tests per round at the shape rule's α
// (intersection–union: no correction), and the rule's minimum detectable error, relative to E_t,
// at the worst round.
void transient_equivalence(Row& row, const std::vector<double>& sim, const std::vector<double>& se,
                           const std::vector<double>& exact, const estimators::Decision& shape) {
  const auto m = static_cast<Eigen::Index>(sim.size());
  if (m == 0) {
    kit::add_equivalence(row, kMargin, false, "simulated E_t: no resolved round",
                         std::numeric_limits<double>::infinity());
    return;
  }
  const Eigen::Map<const Vector> s(sim.data(), m), e(se.data(), m), x(exact.data(), m);
  const Vector margin = kMargin * x.cwiseAbs();
  const auto tost = estimators::equivalence_test(s, e, 0.0, x - margin, x + margin, shape.alpha);
  double mde = 0;
  for (Eigen::Index t = 0; t < m; ++t) {
    mde = std::max(
        mde, estimators::minimum_detectable_error(shape.threshold, 0.0, e(t), 0.0, kit::kPower) /
                 std::abs(x(t)));
  }
  kit::add_equivalence(row, kMargin, tost.passed,
                       "E_t at every resolved round: " + tost.description, mde);
}

}  // namespace

void add_transient_row(const Context& ctx, const theory::QuadraticProblem& q,
                       const kit::RateClaim& claimed, double alpha, ClaimResult& out) {
  const auto k = theory::expansion_coefficients(q);
  const Vector& x_star = k.constants.x_star;
  const double mu = q.strong_convexity(), l = q.smoothness();
  // (ii) Transient from a far start: the smallest C with E‖x_t − x*‖² ≤ C·bound(t), and the
  // decay rate of the transient E_t − E_∞ per local step.                       THEORY (S5)
  const double gamma_t = 0.05 / l;
  const int h_t = 5;
  const theory::RunSetting step_t{gamma_t, h_t};
  const Vector x0 = x_star + Vector::Constant(q.dim(), 5.0);
  const double sigma2 = k.constants.sigma_star2, zeta2 = k.constants.zeta2;
  const theory::FiniteTimeBound bound = theory::scaffold_finite_time_bound(
      step_t, mu, l, zeta2, sigma2, q.num_clients(), (x0 - x_star).squaredNorm());
  const int rounds = ctx.options.quick ? 300 : 600;
  // 16000 chains: with 4000 the TOST of E_t within 5 % did not confirm round 38 (3.3 % off, s.e.
  // 1.3 %; needs ≈ 0.6 %), leaving the row "not rejected"; 16000 confirm it (min t = 5.3).
  const int chains = ctx.options.quick ? 500 : 16000;
  std::vector<Trajectory> trajs;
  const std::vector<Algorithm> algos = {Algorithm::scaffold, Algorithm::fedavg, Algorithm::fedrr};
  for (std::size_t i = 0; i < algos.size(); ++i) {
    trajs.push_back(
        simulate_trajectory(ctx, q, algos[i], step_t, x0, x_star, chains, rounds,
                            kit::row_seed(ctx, kId, "trajectory " + theory::to_string(algos[i])),
                            kit::round_by_round_threads(ctx)));
  }
  const auto& sc = trajs.front();
  const auto exact = theory::scaffold_transient_mse(q, step_t, x0, x_star, rounds);
  const double e_inf = [&] {
    const auto ex = theory::scaffold_exact(q, step_t);
    return ex.x_cov().trace() + (ex.x_mean() - x_star).squaredNorm();
  }();
  // The (S5) constant, for the record only: the bound holds up to an unspecified absolute
  // constant, so no value of C can refute it (its transient rate is what is checked below).
  double c_exact = 0;
  for (int t = 0; t <= rounds; ++t) c_exact = std::max(c_exact, exact[t] / bound.at(t));
  // (a) The rate. E_t − E_∞ = ‖T^t(m₀ − m_∞)‖² + tr T^t(P₀ − P_∞)T^{tᵀ} decays like ρ(T)^{2t}
  // (THEORY S6), i.e. at −2 log ρ(T)/H per local step. (S1) claims ρ(T) ≤ (1 − γμ)^H, so the
  // transient of the squared distance decays at least at −2 log(1 − γμ) per step — 8× faster
  // than (S5)'s −log(1 − γμ/4), which it implies.
  const double radius = theory::scaffold_spectral_radius(q, step_t);
  const double rate_exact = -2.0 * std::log(radius) / h_t;
  const double rate_claimed = -2.0 * std::log(claimed(step_t, mu, l)) / h_t;
  const double rate_s5 = bound.rate();
  // Round-off of the spectral radius (a non-symmetric eigen-solve): ≤ 1e-10 relative
  // (maps::kRadiusRoundOff), i.e. ≤ 2e-10/H/|log ρ| relative in the rate.
  const bool rate_ok = rate_exact >= rate_claimed - 2e-10 / h_t;
  // (b) The shape. The simulated E_t agrees with the exact E_t at every round of the resolved
  // transient (E_t − E_∞ > 5 s.e.): Bonferroni z test over those rounds (decide.hpp (b)),
  // each E_t a mean over `chains` independent chains.
  std::vector<double> sim, se, ex;
  for (int t = 1; t <= rounds && t < static_cast<int>(sc.mse.size()); ++t) {
    if (!(exact[t] - e_inf > 5 * sc.mse_se[t])) break;
    sim.push_back(sc.mse[t]);
    se.push_back(sc.mse_se[t]);
    ex.push_back(exact[t]);
  }
  const int m = static_cast<int>(sim.size());
  const estimators::Decision shape =
      m > 0 ? estimators::bonferroni_z_test(Eigen::Map<const Vector>(sim.data(), m),
                                            Eigen::Map<const Vector>(se.data(), m),
                                            Eigen::Map<const Vector>(ex.data(), m), alpha)
            : estimators::Decision{};
  // Decay rate of the simulated transient over the same rounds (reported and gated).
  std::vector<double> fx, fy;
  for (int i = 0; i < m; ++i) {
    if (!(sim[i] - e_inf > 0)) break;
    fx.push_back(static_cast<double>(h_t * (i + 1)));
    fy.push_back(std::log(sim[i] - e_inf));
  }
  const auto fit_sim =
      fx.size() >= 3 ? estimators::fit_slope(fx, fy, alpha) : estimators::SlopeEstimate{};
  {
    Row row;
    row.setting =
        fmt::format("Scaffold, q-small, γL = 0.05, H = {}, x₀ = x* + 5·1, {} chains, {} rounds",
                    h_t, chains, rounds);
    row.predicted = fmt::format(
        "transient rate −2 log ρ(T)/H ≥ −2 log(1 − γμ) = {:.3e}/step (S1; S5 asks {:.3e}); "
        "E_t = exact E_t at every resolved round",
        rate_claimed, rate_s5);
    row.measured = fmt::format(
        "exact rate {:.3e}/step (ρ(T) = {:.6f}); simulated E_t vs exact over {} rounds: max |z| "
        "= {:.2f} (threshold {:.2f}); simulated decay {:.3e}/step; (S5) constant C = {:.3f}",
        rate_exact, radius, m, shape.statistic, shape.threshold, -fit_sim.slope, c_exact);
    row.passed = rate_ok && m >= 3 && shape.passed;
    row.data = {{"rate_exact", rate_exact},
                {"rate_claimed_s1", rate_claimed},
                {"rate_s5", rate_s5},
                {"spectral_radius", radius},
                {"rounds_compared", m},
                {"max_abs_z", shape.statistic},
                {"z_threshold", shape.threshold},
                {"rate_simulated", -fit_sim.slope},
                {"C_exact_curve", c_exact},
                {"B0", bound.initial},
                {"floor_term", bound.stationary},
                {"E_inf_exact", e_inf},
                {"mu", mu},
                {"L", l},
                {"gamma", gamma_t},
                {"H", h_t},
                {"sigma_star2", sigma2},
                {"zeta2", zeta2},
                {"chains", chains},
                {"rounds", rounds},
                {"alpha", alpha},
                {"seed", kit::row_seed(ctx, kId, "trajectory scaffold")},
                {"mse_simulated", sc.mse},
                {"mse_exact", exact}};
    kit::gate_exact(row, "rate_exact", rate_exact);
    kit::gate_exact(row, "C_exact_curve", c_exact);
    kit::gate(row, "rate_simulated", -fit_sim.slope, kit::kBaselineZ * fit_sim.std_error);
    transient_equivalence(row, sim, se, ex, shape);
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
}

}  // namespace fedverify::claims::dynamics::scaffold_bound
