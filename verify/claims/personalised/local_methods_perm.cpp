// Claim personalised.local-methods-perm.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/personalised/common.hpp"
#include "verify/claims/personalised/personalised.hpp"

namespace fedverify::claims::personalised {
namespace {

constexpr const char* kId = "personalised.local-methods-perm";

constexpr const char* kCard = R"(
Summary: Local GD with random local steps and full averaging solves the personalised objective, λ = np/α.
Statement: Seed 001 / [L2GD]: local methods solve the personalised ERM. L2GD with averaging
  weight θ = αλ/(np) = 1 replaces every model by the average: it is Local GD whose number of local
  steps between averagings is geometric (mean (1 − p)/p), local step α/(n(1 − p)). Both of its
  steps are unbiased for α∇F, so its mean iterate converges to x(λ), the optimum of the
  personalised objective F = f + λψ, with λ = np/α — not to the ERM optimum x*.
Formula: θ = αλ/(np) = 1  ⇒  E x^k → x(λ),  λ = np/α
THEORY: (P1), (P2), (P6)
Setting: Exact (THEORY (P6)) on the n = 4, d = 3 quadratic of the personalised claims (μ = 0.1,
  L = 1), x⁰ = 0; p ∈ {0.1, 0.25, 0.4} and local step β = α/(n(1 − p)) ∈ {0.5/L, 1/L}, so λ =
  np/α = p/((1 − p)β).
Decision: deterministic, per row: ‖E x^k − x(λ)‖² ≤ ${floor}·‖x(λ)‖² within ${iterations}
  iterations; the row also gives the distance of the mean's limit to x* and E‖x^k − x(λ)‖² at that
  k (the iterates' spread around x(λ), outside (P3)'s step condition θ ≤ 1/2).
Sample row:
  | p = 0.25, β = 1/L (λ = 0.333) | E x^k → x(λ), λ = np/α | ‖E x^k − x(λ)‖² ≤ 1e-24·‖x(λ)‖² at k
  = 269; ‖x(λ) − x*‖² = 0.51·‖x(λ)‖²; spread E‖x^k − x(λ)‖² = 0.16·‖x(λ)‖² there | ✅ holds |
Notes: The identification λ = np/α is what makes FedAvg-like methods personalised: with fewer
  averagings (smaller p) or larger local steps the method targets a more local model. The mean is
  exact; a single run's iterates scatter around x(λ) by the stationary spread the row reports.
)";

constexpr double kFloor = 1e-24;
constexpr int kIterations = 20000;
const std::vector<double> kProbabilities = {0.1, 0.25, 0.4};
const std::vector<double> kLocalStepsTimesL = {0.5, 1.0};  // β·L

}  // namespace

ClaimResult local_methods_perm(const Context& /*ctx*/, const PermLambda& lambda_of) {
  ClaimResult out;
  const auto& q = rate_quadratic();
  const int n = q.num_clients();
  const Matrix x_star = theory::global_optimum_replicated(q);
  const Matrix x0 = Matrix::Zero(q.dim(), n);
  for (double p : kProbabilities) {
    for (double bl : kLocalStepsTimesL) {
      const double beta = bl / q.smoothness();
      const double alpha = beta * n * (1 - p);
      const double lambda = lambda_of(n, p, alpha);
      const theory::L2gdSetting s{n * p / alpha, p, alpha};  // θ = αλ/(np) = 1: full averaging
      theory::L2gdMeanSquare chain(q, s, x0);
      const Matrix target = theory::personalised_optimum(q, lambda);
      const double scale = target.squaredNorm();
      int reached = -1;
      double gap = (chain.mean() - target).squaredNorm() / scale;
      for (int k = 1; k <= kIterations && reached < 0; ++k) {
        chain.step();
        gap = (chain.mean() - target).squaredNorm() / scale;
        if (gap <= kFloor) reached = k;
      }
      const double spread = chain.mean_square_error() / chain.x_lambda().squaredNorm();
      const double to_erm = (target - x_star).squaredNorm() / scale;
      Row row;
      row.setting = fmt::format("p = {:g}, β = {:g}/L (λ = {:.3g})", p, bl, lambda);
      row.predicted = "E x^k → x(λ), λ = np/α";
      row.measured = reached >= 0
                         ? fmt::format(
                               "‖E x^k − x(λ)‖² ≤ {:g}·‖x(λ)‖² at k = {}; ‖x(λ) − x*‖² = "
                               "{:.2g}·‖x(λ)‖²; spread E‖x^k − x(λ)‖² = {:.2g}·‖x(λ)‖² there",
                               kFloor, reached, to_erm, spread)
                         : fmt::format(
                               "‖E x^k − x(λ)‖² = {:.3g}·‖x(λ)‖² at k = {} (not reached); "
                               "‖x(λ) − x*‖² = {:.2g}·‖x(λ)‖²",
                               gap, kIterations, to_erm);
      row.passed = reached >= 0;
      row.data = {{"p", p},
                  {"local_step", beta},
                  {"alpha", alpha},
                  {"lambda", lambda},
                  {"reached_at", reached},
                  {"final_gap_relative", gap},
                  {"spread_relative", spread},
                  {"erm_distance_relative", to_erm}};
      kit::gate_exact(row, "spread_relative", spread);
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return local_methods_perm(ctx, [](int n, double p, double alpha) { return n * p / alpha; });
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::personalised, 8},
                                        .card = kCard,
                                        .values = {{"floor", kFloor}, {"iterations", kIterations}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::personalised
