// Claim dynamics.w2-contraction.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimators/samplers/chains.hpp"
#include "estimators/statistics/regression.hpp"
#include "estimators/statistics/wasserstein.hpp"
#include "theory/closed_forms/bounds.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/dynamics/dynamics.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.w2-contraction";

constexpr const char* kCard = R"(
Summary: For γL ≤ 1 FedAvg contracts in W2 by (1 − γμ)^H per round.
Statement: For γL ≤ 1, FedAvg contracts in W2 with factor (1 − γμ)^H per round: synchronously
  coupled chains approach each other at least that fast, and the law of x_t approaches the
  stationary law at least that fast.
Formula: W2(law(x_t), π) ≤ (1 − γμ)^{Ht} W2(law(x₀), π)
THEORY: (F1)
Setting: (a) synchronous coupling (same seed, two starts), 256 chain pairs over 60 rounds,
  γ·L_sample = 0.5, H = 2, on q-small and on small_logistic() (d = 2, N = 4, minibatch 1); (b) on
  small_logistic(): an ensemble of 300 (quick) or 600 chains from x* + (4, 4) against a stationary
  sample, empirical W2 by exact assignment (estimators/statistics/wasserstein.hpp).
Decision: (a) every coupled chain pair, every round, within the bound plus round-off (64 ulps per
  local step); (b) empirical W2 (exact assignment) to a stationary sample within the bound plus the
  two-sample noise floor while above twice the floor, and fitted rate ≥ γμ
Sample row:
  | logistic d = 2, FedAvg, γ·L_sample = 0.5, H = 2, n = 300 per sample | W2_t ≤ (1 − γμ)^{Ht}
  W2_0 + floor while W2_t > 2·floor; rate ≥ 3.224e-02/step | W2_0 = 5.662, floor = 0.0200, 52
  rounds compared, fitted rate 4.766e-02/step | ✅ holds |
Notes: L is the per-sample smoothness for minibatch gradients (the (F1) correction); the bound is
  theory/closed_forms/bounds.hpp; the required rate is the per-local-step −log(1 − γμ) ≥ γμ.
)";

using theory::Algorithm;

// Confidence level of the fitted decay rate's interval (reported, not decided on).
constexpr double kW2Alpha = 0.01;

// Unit-round-off bound of a chain's arithmetic: each local step is a few flops per coordinate
// (axpy of a matrix-vector product), so the computed state drifts from the exact map by at most
// kStepUlps·ε·‖x‖ per step; 64 ulps per step is far above the actual ≈ d + 2 flops of error.
constexpr double kStepUlps = 64.0;

// (a) Synchronous coupling: two ensembles with the same seed from different starts.
Row coupling_row(const Context& ctx, const std::string& name, const theory::Problem& p,
                 double lipschitz, const theory::RunSetting& step, const Vector& x0,
                 const Vector& x0p, int chains, int rounds, std::uint64_t seed, int threads,
                 const ContractionFactor& factor) {
  const auto o = kit::sampler_options(ctx, Algorithm::fedavg, step, seed);
  estimators::ChainEnsemble e(p, o, x0, chains), ep(p, o, x0p, chains);
  const double mu = p.strong_convexity();
  const double d0 = (x0 - x0p).norm();
  const double eps = std::numeric_limits<double>::epsilon();
  double worst_ratio = 0;  // max over chains and rounds of ‖x_t − x'_t‖ / bound
  double scale = std::max(x0.norm(), x0p.norm());
  bool ok = true;
  for (int t = 1; t <= rounds; ++t) {
    e.advance(threads);
    ep.advance(threads);
    scale = std::max({scale, e.state().cwiseAbs().maxCoeff(), ep.state().cwiseAbs().maxCoeff()});
    const double contraction = factor(step, mu, t) * d0;  // THEORY (F1)
    // Round-off allowance: kStepUlps·ε·scale per local step, accumulated over Ht steps.
    const double tol = kStepUlps * eps * scale * step.local_steps * t;
    const Eigen::ArrayXd dist = (e.state() - ep.state()).colwise().norm().transpose().array();
    worst_ratio = std::max(worst_ratio, dist.maxCoeff() / contraction);
    if ((dist > contraction + tol).any()) ok = false;
  }
  Row row;
  row.setting = fmt::format("{}, FedAvg, γ·L_sample = {:.2f}, H = {}, {} chain pairs, {} rounds",
                            name, step.gamma * lipschitz, step.local_steps, chains, rounds);
  row.predicted = "‖x_t − x'_t‖ ≤ (1 − γμ)^{Ht} ‖x₀ − x'₀‖ for every chain and round";
  row.measured = fmt::format("max ratio to the bound {:.4f}", worst_ratio);
  row.passed = ok;
  row.data = {
      {"worst_ratio", worst_ratio}, {"gamma", step.gamma}, {"H", step.local_steps}, {"mu", mu},
      {"lipschitz", lipschitz},     {"chains", chains},    {"rounds", rounds},      {"seed", seed}};
  // A function of the seed through contracting maps: a change of the kernels' round-off moves
  // it by round-off only.
  kit::gate_exact(row, "worst_ratio", worst_ratio);
  return row;
}

}  // namespace

ClaimResult w2_contraction(const Context& ctx, const ContractionFactor& contraction) {
  ClaimResult out;
  const int threads = kit::round_by_round_threads(ctx);
  // (a) on q-small (L = max client eigenvalue bounds every stochastic gradient: additive noise)
  // and on the logistic problem (per-sample smoothness).
  {
    const auto& q = as_quadratic(default_quadratic_problems().front());
    const Vector xs = theory::minimizer(q);
    const theory::RunSetting step{0.5 / q.smoothness(), 2};
    out.rows.push_back(coupling_row(ctx, "q-small", q, q.smoothness(), step,
                                    xs + Vector::Constant(2, 3.0), xs - Vector::Constant(2, 1.0),
                                    256, 60, kit::row_seed(ctx, kId, "coupling q-small"), threads,
                                    contraction));
  }
  const auto lp = small_logistic();
  const double ls = per_sample_smoothness(lp);
  const Vector xs = theory::minimizer(lp);
  const theory::RunSetting step{0.5 / ls, 2};
  {
    Vector d(2);
    d << 3.0, -2.0;
    out.rows.push_back(coupling_row(ctx, "logistic d = 2, N = 4", lp, ls, step, xs + d, xs - d, 256,
                                    60, kit::row_seed(ctx, kId, "coupling logistic"), threads,
                                    contraction));
  }
  // (b) Empirical W2 between an ensemble from a far start and a stationary sample.
  const int n = ctx.options.quick ? 300 : 600;
  const double rho_round = theory::fedavg_round_contraction(step, lp.strong_convexity());
  // Burn-in of the stationary samples from x*: the initial distance to π is O(spread), and
  // ρ^B ≤ 1e-4 makes the residual invisible next to the empirical-W2 noise (≫ 1e-4 spread).
  const int burn = static_cast<int>(std::ceil(std::log(1e-4) / std::log(rho_round)));
  const std::vector<std::uint64_t> seeds = {kit::row_seed(ctx, kId, "stationary sample 1"),
                                            kit::row_seed(ctx, kId, "stationary sample 2"),
                                            kit::row_seed(ctx, kId, "ensemble from x* + (4, 4)")};
  const Matrix pi1 = stationary_sample(ctx, lp, step, xs, n, burn, seeds[0], threads);
  const Matrix pi2 = stationary_sample(ctx, lp, step, xs, n, burn, seeds[1], threads);
  const double floor = estimators::empirical_w2(pi1, pi2);
  Vector dx(2);
  dx << 4.0, 4.0;
  const Vector x0 = xs + dx;
  estimators::ChainEnsemble e(lp, kit::sampler_options(ctx, Algorithm::fedavg, step, seeds[2]), x0,
                              n);
  // W2(δ_{x0}, π̂) = √(mean_j ‖x₀ − y_j‖²) exactly.
  const double w0 = std::sqrt((pi1.colwise() - x0).colwise().squaredNorm().mean());
  std::vector<double> rounds{0}, w2{w0}, bound{w0}, floor_line{floor};
  // Compared only while clearly above the floor (2×): below it the empirical W2 measures
  // sampling noise, not the distance between the laws.
  const double compare_above = 2.0 * floor;
  bool ok = true;
  int compared = 0;
  const int max_rounds = 60;
  for (int t = 1; t <= max_rounds; ++t) {
    e.advance(threads);
    const double w = estimators::empirical_w2(e.state(), pi1);
    const double b = contraction(step, lp.strong_convexity(), t) * w0;  // (F1)
    rounds.push_back(t);
    w2.push_back(w);
    bound.push_back(b);
    floor_line.push_back(floor);
    if (w <= compare_above) break;
    ++compared;
    // Triangle inequality: W2(μ̂_t, π̂) ≤ W2(μ_t, π) + sampling errors of both samples, which the
    // floor (two stationary samples) measures; hence the additive floor.
    if (w > b + floor) ok = false;
  }
  // Fitted decay rate over the compared rounds (per local step).
  std::vector<double> fx, fy;
  for (int t = 0; t <= compared; ++t) {
    fx.push_back(rounds[t] * step.local_steps);
    fy.push_back(std::log(w2[t]));
  }
  const auto fit =
      fx.size() >= 3 ? estimators::fit_slope(fx, fy, kW2Alpha) : estimators::SlopeEstimate{};
  const double required = theory::fedavg_contraction_rate(step, lp.strong_convexity());
  Row row;
  row.setting = fmt::format("logistic d = 2, FedAvg, γ·L_sample = 0.5, H = {}, n = {} per sample",
                            step.local_steps, n);
  row.predicted = fmt::format(
      "W2_t ≤ (1 − γμ)^{{Ht}} W2_0 + floor while W2_t > 2·floor; rate ≥ {:.3e}/step", required);
  row.measured = fmt::format(
      "W2_0 = {:.3f}, floor = {:.4f}, {} rounds compared, fitted rate "
      "{:.3e}/step",
      w0, floor, compared, -fit.slope);
  row.passed = ok && compared >= 2 && fit.n >= 3 && -fit.slope >= required;
  row.data = {{"rounds", rounds},
              {"w2", w2},
              {"bound", bound},
              {"floor", floor},
              {"burn_in", burn},
              {"n", n},
              {"gamma", step.gamma},
              {"H", step.local_steps},
              {"mu", lp.strong_convexity()},
              {"rate_fitted", -fit.slope},
              {"rate_required", required},
              {"seeds", seeds},
              {"problem_seed", kSmallLogisticSeed}};
  kit::gate(row, "rate_fitted", -fit.slope, kit::kBaselineZ * fit.std_error);
  out.rows.push_back(row);
  PlotSpec plot{"W2(law(x_t), π) on logistic d = 2 (FedAvg, H = 2)",
                "round t",
                "empirical W2",
                false,
                true,
                false,
                {}};
  plot.series.push_back({"empirical W2 to a stationary sample", rounds, w2, "linespoints"});
  plot.series.push_back({"(1 − γμ)^{Ht} W2_0", rounds, bound, "lines dashtype 2"});
  plot.series.push_back({"noise floor (two stationary samples)", rounds, floor_line,
                         "lines dashtype 3 lc rgb 'black'"});
  kit::add_figure(ctx, plot, "w2-contraction.svg",
                  "Empirical W2 between an ensemble started at x* + (4, 4) and a stationary "
                  "sample, against the (F1) bound and the empirical-W2 noise floor.",
                  out);
  return out;
}

namespace {

ClaimResult run(const Context& ctx) { return w2_contraction(ctx, theory::fedavg_contraction); }

const bool registered = register_claim(
    {.id = kId, .order = {Section::dynamics, 4}, .card = kCard, .alpha = 0, .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
