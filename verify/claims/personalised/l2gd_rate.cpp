// Claim personalised.l2gd-rate.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints. Its rows are built in
// l2gd_rate_exact.cpp (quadratic) and l2gd_rate_simulated.cpp (logistic).
#include "theory/closed_forms/personalised.hpp"
#include "verify/claims/personalised/common.hpp"
#include "verify/claims/personalised/l2gd_rate_rows.hpp"
#include "verify/claims/personalised/personalised.hpp"

namespace fedverify::claims::personalised {
namespace {

constexpr const char* kId = kL2gdRateId;

constexpr const char* kCard = R"(
Summary: L2GD's mean-square distance to the personalised optimum stays below the (P3) bound.
Statement: For every step size α ≤ α_max = 1/(2𝓛), the mean-square distance of L2GD to the
  personalised optimum x(λ) stays below the (P3) bound at every iteration: a linear transient plus a
  neighbourhood proportional to α.
Formula: E‖x^k − x(λ)‖² ≤ (1 − αμ/n)^k ‖x⁰ − x(λ)‖² + 2nασ²/μ,  𝓛 = (1/n) max{L/(1−p), λ/p},  σ² =
  (1/n²) Σ_i (‖∇f_i(x_i(λ))‖²/(1 − p) + λ²‖x_i(λ) − x̄(λ)‖²/p)
THEORY: (P2), (P3)
Setting: the problems of personalised/common.hpp. Quadratic: exact E‖x^k − x(λ)‖²
  (theory::L2gdMeanSquare), λ ∈ {0.01, 0.1, 1, 10}, p ∈ {0.1, p*, 0.5, 0.9}, α ∈ {α_max/4, α_max}
  (and 4α_max, 16α_max beyond the theorem). Logistic: simulated L2GD with 1000 (quick) or 2000
  chains over 200 or 400 iterations, λ ∈ {0.05, 0.5, 5}, p ∈ {p*, 0.5}, α ∈ {α_max/4, α_max}.
Decision: ${problems}; quadratic: exact E‖x^k − x(λ)‖² ≤ bound·(1 + ${round_off}) (round-off) at
  every k ≤ ${iterations} for α ∈ {α_max/4, α_max}, and the bound fails somewhere at 16α_max;
  logistic (simulated): the bound is rejected at k when mean − z·SE > bound, z one-sided with
  Bonferroni over every k and setting at α = ${alpha}; a row fails on any rejection
Sample row:
  | logistic, λ = 0.5, p = 0.1927 (p*), α = α_max/4 = 0.1445 | E‖x^k − x(λ)‖² ≤ bound for k ≤
  200 | 1000 chains: max over k of mean/bound 0.900 ± 0.00092 at k = 1; largest (mean −
  bound)/SE -108.8 (reject above 4.93); 0 rejections | ✅ holds |
Notes: At 16α_max the bound must fail somewhere, or it would be vacuous; the logistic rejection
  rule is estimators/statistics/decide.hpp (j).
Margin: logistic (simulated) rows, one-sided: the bound is confirmed at every k when mean + z·SE
  < bound (z at the rule's per-test α); the quadratic rows are exact (round-off tolerance).
)";

}  // namespace

ClaimResult l2gd_rate(const Context& ctx, const L2gdBound& bound) {
  ClaimResult out;
  exact_rate_rows(ctx, bound, out);
  simulated_rate_rows(ctx, bound, out);
  return out;
}

namespace {

ClaimResult run(const Context& ctx) { return l2gd_rate(ctx, theory::l2gd_bound); }

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::personalised, 1},
                    .card = kCard,
                    .values = {{"problems", quadratic_name() + "; " + logistic_name()},
                               {"round_off", kRoundOffRatio},
                               {"iterations", kExactIterations},
                               {"alpha", kRateAlpha}},
                    .alpha = kRateAlpha,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::personalised
