// Claim optimisers.fednova-random-steps (THEORY (A2c)).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/fednova.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/kit/exact_law_simulation.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::optimisers {
namespace {

using theory::UnequalStepsAggregation;

constexpr const char* kId = "optimisers.fednova-random-steps";

constexpr const char* kCard = R"(
Summary: With local steps drawn at random every round, FedAvg optimises the surrogate weighted by the
  expected steps; FedNova still reaches x*.
Statement: Wang et al. (2020) let the clients' numbers of local steps vary from round to round
  ("τ_i may be random"). Derived here (A2c): with H_c drawn each round uniformly from {1, …, K_c},
  independently, plain FedAvg's round moves x by −γ Σ_c E[H_c] ∇f_c(x) + O(γ²) on average, so its
  stationary mean tends to x̃_E = argmin Σ_c E[H_c] f_c — not to the surrogate of the largest steps
  K_c, nor to x*; FedNova's normalised update is −γ τ_eff Σ_c ∇f_c(x)/N + O(γ²) for every draw, so
  its mean tends to x* whatever the law of the steps. The exact law is a random affine recursion:
  every joint draw of the H_c enumerated.
Formula: (A2c) x̃_E = (Σ_c E[H_c] A_c)⁻¹ Σ_c E[H_c] A_c b_c, E[H_c] = (K_c + 1)/2; exact: T = E[A ⊗ A]
  over the Π_c K_c draws
THEORY: (A2c), (A2), (A2a)
Setting: q-small (d = 2, N = 3) with K_c = (2, 4, 16): 128 joint draws, E[H_c] = (1.5, 2.5, 8.5).
  Exact stationary laws at γ·L·K_max ∈ {0.08, 0.04, 0.02, 0.01, 0.005}. Simulation of FedNova at
  γLK_max = 0.4: 20 replications of ${chains} chains, 1000 (quick) or 2000 rounds, started at the
  exact mean.
Decision: deterministic means: the distance of plain FedAvg's mean to x̃_E and of FedNova's to x*
  falls with γ at a log–log slope ≥ ${order} (O(γ) predicts 1), and plain FedAvg's distance to x*
  at the smallest γ stays ≥ ${kept}·‖x̃_E − x*‖. Simulation: Hotelling T² of the replication means
  and covariance entries against the exact law, α = ${alpha} each, with TOSTs within ${margin}.
Sample row:
  | q-small, K_c = (2, 4, 16), γLK_max = 0.08 … 0.005, exact | FedAvg → x̃_E, FedNova → x* |
  FedAvg–x̃_E slope 1.00, FedNova–x* slope 1.00 | ✅ holds |
Notes: Planted (verify/claim_perturbations_algorithms_slowtest.cpp): a FedNova round that ignores
  --random-steps (every H_c = K_c) fails the simulation row; (A2c) with the largest steps K_c in
  place of E[H_c] fails the mean row.
Margin: the simulation row's TOSTs, δ = ${margin}: Monte Carlo against an exact law, no remainder.
)";

constexpr double kOrder = 0.8;    // slope allowance below the O(γ) rate 1
constexpr double kKept = 0.8;     // plain FedAvg's distance to x* kept at the smallest γ
constexpr double kMargin = 0.05;  // TOST margin of the simulation row (relative)
constexpr int kChains = 32;       // per replication
const std::vector<double> kBounds = {2, 4, 16};
const std::vector<double> kGammaLK = {0.08, 0.04, 0.02, 0.01, 0.005};
constexpr double kSimulatedGammaLK = 0.4;  // mixes in tens of rounds (the grid's γ: thousands)
constexpr theory::Algorithm kFednova{"fednova"};

theory::RunSetting setting(const theory::QuadraticProblem& q, double gamma_lk) {
  theory::RunSetting s;
  s.gamma = gamma_lk / (q.smoothness() * *std::max_element(kBounds.begin(), kBounds.end()));
  s.parameters[std::string(theory::kClientStepsKey)] = kBounds;
  s.parameters[std::string(theory::kRandomStepsKey)] = {1.0};
  return s;
}

double slope(const std::vector<double>& gammas, const std::vector<double>& y) {
  return estimators::fit_log_log_slope(gammas, y, 0.01).slope;
}

Row mean_row(const theory::QuadraticProblem& q, const ExpectedStepsSurrogate& surrogate) {
  const Vector x_star = theory::minimizer(q);
  const Vector target = surrogate(q, setting(q, kGammaLK.front()));
  std::vector<double> gammas, plain, normalised, plain_to_star;
  for (const double gl : kGammaLK) {
    const theory::RunSetting s = setting(q, gl);
    gammas.push_back(s.gamma);
    const Vector m_plain = theory::random_steps_exact(q, s, UnequalStepsAggregation::plain).mean;
    plain.push_back((m_plain - target).norm());
    plain_to_star.push_back((m_plain - x_star).norm());
    normalised.push_back(
        (theory::random_steps_exact(q, s, UnequalStepsAggregation::normalised).mean - x_star)
            .norm());
  }
  const double s_plain = slope(gammas, plain), s_nova = slope(gammas, normalised);
  const double kept = plain_to_star.back() / (target - x_star).norm();
  const double largest =
      (theory::surrogate_optimum(q, setting(q, kGammaLK.front())) - target).norm() /
      (target - x_star).norm();
  Row row;
  row.setting = "q-small, K_c = (2, 4, 16), γLK_max = 0.08 … 0.005, exact";
  row.predicted = "(A2c): FedAvg → x̃_E (the expected steps' surrogate), FedNova → x*, O(γ)";
  row.measured = fmt::format(
      "FedAvg–x̃_E slope {:.2f}, FedNova–x* slope {:.2f}; FedAvg–x* at the smallest γ = {:.2f}·‖x̃_E "
      "− x*‖; the largest steps' surrogate x̃_K is {:.2f}·‖x̃_E − x*‖ from x̃_E",
      s_plain, s_nova, kept, largest);
  row.passed = s_plain >= kOrder && s_nova >= kOrder && kept >= kKept;
  row.data = {
      {"gammas", gammas},       {"plain_to_surrogate", plain}, {"fednova_to_optimum", normalised},
      {"slope_plain", s_plain}, {"slope_fednova", s_nova},     {"kept", kept}};
  kit::gate_exact(row, "slope_plain", s_plain);
  kit::gate_exact(row, "slope_fednova", s_nova);
  return row;
}

Row simulated_row(const Context& ctx, const theory::QuadraticProblem& q, double alpha) {
  const theory::RunSetting s = setting(q, kSimulatedGammaLK);
  return kit::exact_law_row(
      ctx, q,
      {.claim_id = kId,
       .setting = "q-small, K_c = (2, 4, 16), FedNova, γLK_max = 0.4, simulated",
       .predicted = "exact law with random steps ((A2c)'s enumeration)",
       .algorithm = kFednova,
       .step = s,
       .chains_per_replication = kChains,
       .margin = kMargin,
       .alpha = alpha},
      theory::random_steps_exact(q, s, UnequalStepsAggregation::normalised));
}

}  // namespace

ClaimResult run_fednova_random(const Context& ctx, const ExpectedStepsSurrogate& surrogate) {
  const theory::QuadraticProblem q = as_quadratic(default_quadratic_problems().front());
  ClaimResult out;
  out.rows.push_back(mean_row(q, surrogate));
  out.rows.push_back(simulated_row(ctx, q, kFamilyAlpha / 2.0));
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return run_fednova_random(ctx, theory::expected_steps_surrogate);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::optimisers, 15},
                                        .card = kCard,
                                        .values = {{"order", kOrder},
                                                   {"kept", kKept},
                                                   {"margin", kMargin},
                                                   {"chains", kChains},
                                                   {"alpha", kFamilyAlpha / 2.0}},
                                        .alpha = kFamilyAlpha,
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
