// Claim dynamics.linear-speedup.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/dynamics/speedup.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.linear-speedup";

// Equivalence margin (relative, per-N rows and slope), declared in the card.
constexpr double kMargin = 0.05;

constexpr const char* kCard = R"(
Statement: The stationary covariance of FedAvg and Scaffold scales like γ/N: tr Cov_π · N/γ does not
  depend on the number of clients N.
Formula: Cov_π = (γ/N) 𝒜C̄ + O(γ^{3/2}H);  clients sharing A and S: 𝐇 = A, C̄ = S for every N
THEORY: (F2), (S2)
Setting: shared_hessian_problem(N) (verify/claims/problems/dynamics_problems.hpp), N ∈ {1, 2, 4, 8,
  16}; FedAvg and Scaffold at γL = 0.1, H = 2; 20 replications of 16 (quick) or 64 chains, 200 or
  1600 recorded rounds. The prediction is the EXACT stationary covariance (F5)/(S6), so no remainder
  allowance.
Decision: per N: z test of the replication mean of tr Cov·N/γ against the exact value; per
  algorithm: the Student-t interval of the slope of log tr Cov against log N contains −1;
  family-wise α = 0.01, Bonferroni over the 12 tests
Sample row:
  | quadratic, fedavg, N = 8, γL = 0.1, H = 2 | exact 0.3358 (first order tr 𝒜C̄ = 0.3246) |
  0.3403 ± 0.0027 (z = 1.63 beyond the allowance) | ✅ holds |
Notes: The z test is two-sided; both tests are those of dynamics/speedup.hpp.
Margin: δ = ${margin} (relative) of the exact tr Cov·N/γ (per N) and of the slope −1: the
  prediction is the exact stationary covariance (F5)/(S6), so there is no remainder to allow for; δ
  is the resolution that matters (a missing 1/N moves the slope by 100 %).
)";

// The exact stationary covariance is the prediction, no allowance.
SpeedupPrediction exact_prediction(theory::Algorithm a, const theory::Problem& p,
                                   const theory::ExpansionCoefficients& k,
                                   const theory::StepSetting& step) {
  const auto& q = dynamic_cast<const theory::QuadraticProblem&>(p);
  const double scale = q.num_clients() / step.gamma;
  const double exact = theory::exact_moments(q, a, step).cov.trace() * scale;
  const double first = k.a_noise.trace();  // tr((γ/N)𝒜C̄)·N/γ = tr 𝒜C̄     THEORY (F2)
  return SpeedupPrediction{exact, 0.0, first,
                           fmt::format("exact {:.4f} (first order tr 𝒜C̄ = {:.4f})", exact, first)};
}

ClaimResult run(const Context& ctx) {
  return run_speedup(
      ctx, {.id = kId,
            .family = "quadratic",
            .problem_for = [](int n) -> std::shared_ptr<const theory::Problem> {
              return std::make_shared<theory::QuadraticProblem>(shared_hessian_problem(n));
            },
            .predict = exact_prediction,
            .title = "Linear speed-up: tr Cov_π · N/γ against N (γL = 0.1, H = 2)",
            .file = "linear-speedup.svg",
            .caption = "tr Cov_π · N/γ against N for FedAvg and Scaffold (clients sharing A and "
                       "S, optima on a circle): flat in N = linear speed-up; error bars: ±2 s.e. "
                       "across 20 replications.",
            .margin = kMargin,
            .slope_margin = kMargin});
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::dynamics, 1},
                                        .card = kCard,
                                        .values = {{"margin", kMargin}},
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
