// Claim heterogeneity.weighted-clients (THEORY (A1)).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/heterogeneity/heterogeneity.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::heterogeneity {
namespace {

constexpr const char* kId = "heterogeneity.weighted-clients";

constexpr const char* kCard = R"(
Summary: FedAvg with clients weighted by p_c: the exact law, its first order with the noise Σ p_c²
  C_c, and the simulated chain agree.
Statement: Real federated learning weighs clients by their data, f = Σ_c p_c f_c and x_{t+1} =
  Σ_c p_c y_c. Derived here (THEORY (A1)): every FedAvg formula holds with the averages (1/N)Σ_c
  replaced by Σ_c p_c, except the noise, which the server's average carries as Σ_c p_c² C_c: the
  stationary covariance is γ𝒜(Σ_c p_c² C_c) + O(γ²) (not the source's hint γ𝒜(Σ_c p_c² C_c)·
  (Σ_c p_c²)⁻¹) and the mean x* + γ(H − 1)b_h + O(γ²) with b_h = ½𝐇⁻¹Σ_c p_c ∇²f_c ∇f_c(x*). The
  simulated chain, which aggregates with p_c, has the exact weighted law.
Formula: (A1) Cov_π = (γ/N)𝒜C̄_p + O(γ²), C̄_p = N Σ_c p_c² C_c(x*); E_π x = x* + γ(H − 1)b_h +
  γb_s + O(γ²); exact: (F5) with I − M = γΣ_c p_c P_cA_c, Q = γ²Σ_c p_c² Σ_h B^h S_c B^h, (L1)
THEORY: (A1), (F2), (F3), (F5), (L1)
Setting: FedAvg on hetero-4 (quadratic, d = 2, N = 4) with weights 1 : 2 : 4 : 8, H = 4, and on
  ls-diabetes (least squares, d = 10, N = 10 Dirichlet clients of 8 to 107 rows) weighted by data
  size, H = 2. First order against the exact law at γL ∈ {0.04, 0.02, 0.01, 0.005}; simulation
  at γL = 0.05 (hetero-4) and 0.2 (ls-diabetes, which mixes slowly): G replications with G − 1 ≥
  d(d + 1)/2 of ${chains} chains, 1000 (quick) or 2000 recorded rounds, started at the exact mean
  (kit/stationary_run.hpp).
Decision: first order (deterministic): the relative distance of the exact covariance to (A1)'s, and
  of the exact mean to (A1)'s relative to the bias, fall with γ at log–log slopes ≥ ${order} (O(γ)
  predicts 1). Simulation: Hotelling T² of the replication means against the exact mean and (hetero-4)
  of the covariance entries against the exact covariance, α = ${alpha} each, with TOSTs within
  ${margin} (of √tr Σ and of max |Σ_ij|); ls-diabetes's row compares the mean only (its 66
  covariance entries would need ≈ 200× the budget).
Sample row:
  | hetero-4, p = (1, 2, 4, 8)/15, H = 4, γL = 0.04 … 0.005 | (A1): covariance γ𝒜(Σ p_c² C_c), bias
  γ(H − 1)b_h, remainders O(γ) relative | slopes: covariance 1.00, mean 1.00; the source's
  (Σp²)⁻¹ hint stays 1.3 off | ✅ holds |
Notes: A server that ignores the weights (FedLab #305) converges to the equally weighted optimum:
  each simulation row's data give the distance between the weighted and the equally weighted exact
  means in stationary standard deviations (equal_weights_gap_sd). Planted
  (verify/claim_perturbations_weights_slowtest.cpp): that server fails both simulation rows; the
  hint's covariance fails the first-order rows.
Margin: the simulation rows' TOSTs, δ = ${margin}: Monte Carlo against an exact law, no remainder.
)";

constexpr double kOrder = 0.8;    // slope allowance below the O(γ) rate 1 (γL ≤ 0.04)
constexpr double kMargin = 0.05;  // TOST margin of the simulation rows (relative)
constexpr int kChainsPerReplication = 32;
const std::vector<double> kGammaL = {0.04, 0.02, 0.01, 0.005};

struct WeightedCase {
  NamedProblem problem;
  int local_steps = 1;
  std::string weights;  // for the row's setting
  // γL of the simulation row: large enough that a chain mixes within a few hundred rounds, so
  // that the covariance of a replication (about its own mean) is not biased low by its mean's
  // variance, ≈ 2τ/(chains · rounds) relative, τ ≈ 1/(γHμ) rounds.
  double sim_gamma_l = 0.05;
  // Compare the covariance too (hetero-4); ls-diabetes's 66 covariance entries under
  // multiplicative noise would need ≈ 200× the budget for a 5 % TOST: its row is the mean's.
  bool covariance = true;
};

std::vector<WeightedCase> cases() {
  auto quadratic = std::make_shared<theory::QuadraticProblem>(heterogeneous_speedup_problem(4));
  quadratic->set_client_weights({1, 2, 4, 8});
  const NamedProblem& diabetes = default_linear_sa_problems().diabetes;
  auto least_squares = std::make_shared<theory::LinearSaProblem>(as_linear_sa(diabetes));
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(least_squares->num_clients()));
  for (int c = 0; c < least_squares->num_clients(); ++c) {
    rows.push_back(least_squares->num_samples(c));
  }
  least_squares->set_client_weights(rows);
  return {{{"hetero-4", "hetero-4 with weights 1 : 2 : 4 : 8", quadratic},
           4,
           "p = (1, 2, 4, 8)/15",
           0.05},
          {{diabetes.name, diabetes.description + ", weighted by data size", least_squares,
            diabetes.generator},
           2,
           "p_c ∝ n_c",
           0.2,
           false}};
}

theory::ExactMoments exact_law(const theory::Problem& p, const theory::RunSetting& s) {
  if (p.kind() == theory::ProblemKind::quadratic) {
    return theory::exact_moments(dynamic_cast<const theory::QuadraticProblem&>(p),
                                 theory::Algorithm::fedavg, s);
  }
  return *theory::algorithm_theory(theory::Algorithm::fedavg)
              .exact_linear_sa(dynamic_cast<const theory::LinearSaProblem&>(p), s);
}

double slope(const std::vector<double>& gammas, const std::vector<double>& y) {
  return estimators::fit_log_log_slope(gammas, y, 0.01).slope;
}

Row first_order_row(const WeightedCase& c, const WeightedCovariance& covariance) {
  const theory::Problem& p = *c.problem.problem;
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  double sum_p2 = 0;
  for (int i = 0; i < p.num_clients(); ++i) sum_p2 += p.weight(i) * p.weight(i);
  std::vector<double> gammas, cov_errors, mean_errors;
  double hint = 0;
  for (double gl : kGammaL) {
    const theory::RunSetting s{gl / p.smoothness(), c.local_steps};
    const theory::FirstOrderMoments fo = theory::first_order(k, theory::Algorithm::fedavg, s);
    const Matrix predicted = covariance(p, k, s);
    const theory::ExactMoments ex = exact_law(p, s);
    gammas.push_back(s.gamma);
    cov_errors.push_back((ex.cov - predicted).norm() / predicted.norm());
    mean_errors.push_back((ex.mean - fo.mean).norm() / (fo.mean - fo.x_star).norm());
    hint = (ex.cov - fo.cov / sum_p2).norm() / ex.cov.norm();
  }
  const double cov_slope = slope(gammas, cov_errors);
  const double mean_slope = slope(gammas, mean_errors);
  Row row;
  row.setting =
      fmt::format("{}, {}, H = {}, γL = 0.04 … 0.005", c.problem.name, c.weights, c.local_steps);
  row.predicted = "(A1): covariance γ𝒜(Σ p_c² C_c), bias γ(H − 1)b_h, remainders O(γ) relative";
  row.measured = fmt::format(
      "slopes: covariance {:.2f}, mean {:.2f} (relative errors {:.1e} … {:.1e}, {:.1e} … {:.1e}); "
      "the source's (Σp²)⁻¹ hint stays {:.2f} off",
      cov_slope, mean_slope, cov_errors.front(), cov_errors.back(), mean_errors.front(),
      mean_errors.back(), hint);
  row.passed = cov_slope >= kOrder && mean_slope >= kOrder;
  row.data = {{"gammas", gammas},       {"cov_errors", cov_errors}, {"mean_errors", mean_errors},
              {"cov_slope", cov_slope}, {"mean_slope", mean_slope}, {"hint_error", hint},
              {"sum_p2", sum_p2}};
  kit::gate_exact(row, "cov_slope", cov_slope);
  kit::gate_exact(row, "mean_slope", mean_slope);
  return row;
}

Row simulated_row(const Context& ctx, const WeightedCase& c, double alpha) {
  const theory::Problem& p = *c.problem.problem;
  const theory::RunSetting s{c.sim_gamma_l / p.smoothness(), c.local_steps};
  const theory::ExactMoments ex = exact_law(p, s);
  const std::string setting = fmt::format("{}, {}, H = {}, γL = {:g}, simulated", c.problem.name,
                                          c.weights, c.local_steps, c.sim_gamma_l);
  StationaryRunSpec spec;
  const int d = p.dim();
  spec.replications = std::max(20, d * (d + 1) / 2 + 5);  // G − 1 ≥ d(d+1)/2: covariance test
  spec.chains = spec.replications * kChainsPerReplication;
  spec.rounds = ctx.options.quick ? 1000 : 2000;
  spec.sampler =
      kit::sampler_options(ctx, theory::Algorithm::fedavg, s, kit::row_seed(ctx, kId, setting));
  spec.contraction = ex.spectral_radius;
  spec.start = ex.mean;
  spec.burn_in_residual = 1e-3;  // started at the exact mean: only the covariance's ρ^{2t}
  const StationaryRun run = run_stationary(ctx, p, spec);
  if (run.diverged) return kit::diverged_row(setting, run.divergence);
  Row row = c.covariance ? exact_moments_row(run, ex.mean, ex.cov, kMargin, alpha)
                         : exact_mean_row(run, ex.mean, ex.cov, kMargin, alpha);
  row.setting = setting;
  row.predicted = c.covariance ? "exact weighted law ((F5) with p_c): mean and covariance"
                               : "exact weighted law ((L1) with p_c): mean";
  // Where a server ignoring the weights would sit: the equally weighted exact mean.
  std::unique_ptr<theory::Problem> equal =
      c.problem.problem->kind() == theory::ProblemKind::quadratic
          ? std::unique_ptr<theory::Problem>(std::make_unique<theory::QuadraticProblem>(
                dynamic_cast<const theory::QuadraticProblem&>(p)))
          : std::make_unique<theory::LinearSaProblem>(
                dynamic_cast<const theory::LinearSaProblem&>(p));
  equal->set_client_weights(std::vector<double>(static_cast<std::size_t>(p.num_clients()), 1.0));
  const double gap_sd = (exact_law(*equal, s).mean - ex.mean).norm() / std::sqrt(ex.cov.trace());
  row.data.update({{"exact_mean", kit::to_std(ex.mean)},
                   {"gamma", s.gamma},
                   {"H", c.local_steps},
                   {"replications", spec.replications},
                   {"chains", spec.chains},
                   {"rounds", spec.rounds},
                   {"seed", spec.sampler.seed},
                   {"equal_weights_gap_sd", gap_sd}});
  kit::gate_simulated(row, "mean", run.pooled.mean, run.pooled.mean_mcse);
  return row;
}

}  // namespace

Matrix weighted_first_order_covariance(const theory::Problem& /*p*/,
                                       const theory::ExpansionCoefficients& k,
                                       const theory::RunSetting& s) {
  return theory::first_order(k, theory::Algorithm::fedavg, s).cov;  // THEORY (A1)
}

ClaimResult weighted_clients(const Context& ctx, const WeightedCovariance& covariance) {
  ClaimResult out;
  const std::vector<WeightedCase> all = cases();
  const double alpha = kFamilyAlpha / (2.0 * static_cast<double>(all.size()));
  for (const WeightedCase& c : all) out.rows.push_back(first_order_row(c, covariance));
  for (const WeightedCase& c : all) out.rows.push_back(simulated_row(ctx, c, alpha));
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return weighted_clients(ctx, weighted_first_order_covariance);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::heterogeneity, 2},
                                        .card = kCard,
                                        .values = {{"order", kOrder},
                                                   {"margin", kMargin},
                                                   {"chains", kChainsPerReplication},
                                                   {"alpha", kFamilyAlpha / 4.0}},
                                        .alpha = kFamilyAlpha,
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::heterogeneity
