// Claim dynamics.linear-speedup-logistic.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <memory>

#include "verify/claims/dynamics/speedup.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.linear-speedup-logistic";

// Equivalence margins (relative), declared in the card.
constexpr double kMargin = 0.2;
constexpr double kSlopeMargin = 0.05;

constexpr const char* kCard = R"(
Statement: On logistic regression too, the stationary covariance of FedAvg and Scaffold scales like
  γ/N: tr Cov_π · N/γ does not depend on the number of clients N.
Formula: Cov_π = (γ/N) 𝒜C̄ + O(γ^{3/2}H);  N clients holding the same data: x*, 𝐇, C̄ fixed in N
THEORY: (F2), (S2), §6
Setting: pooled_clients_logistic(N) (verify/claims/problems/dynamics_problems.hpp: N clients each
  holding the 160 samples of small_logistic(), d = 2), N ∈ {1, 2, 4, 8, 16}; FedAvg and Scaffold at
  γL = 0.1, H = 2; 20 replications. No exact moments exist: the prediction is the first-order tr 𝒜C̄
  with the relative remainder ≈ γHL of (F2) (THEORY §8) declared as a two-sided allowance γHL·tr 𝒜C̄
  (the same for every N, so the slope test, which has no allowance, is the sharper check of the 1/N
  law).
Decision: per N: z test of the replication mean of tr Cov·N/γ against tr 𝒜C̄ beyond the first-order
  allowance γHL·tr 𝒜C̄; per algorithm: the Student-t interval of the slope of log tr Cov against log
  N contains −1; family-wise α = 0.01, Bonferroni over the 12 tests
Sample row:
  | logistic, fedavg, slope of log tr Cov_π against log N | −1 |
  -1.0041 [-1.0420, -0.9662] (99.92 % CI) | ✅ holds |
Notes: The z test is two-sided; both tests are those of dynamics/speedup.hpp.
Margin: per N, δ = ${margin} (relative) of tr 𝒜C̄ = γHL, the first-order remainder allowance of
  THEORY §8 (an upper allowance: the exact quadratic chain's relative covariance remainder at γL =
  0.1, H = 2 is 3.4 %); slope, δ = ${slope_margin} of −1, the remainder being nearly the same for
  every N (the clients hold the same data).
)";

// First order only, with the remainder γHL·tr 𝒜C̄ as allowance.
SpeedupPrediction first_order_prediction(theory::Algorithm, const theory::Problem&,
                                         const theory::ExpansionCoefficients& k,
                                         const theory::StepSetting& step) {
  const double first = k.a_noise.trace();  // tr((γ/N)𝒜C̄)·N/γ = tr 𝒜C̄     THEORY (F2)
  const double allowance = step.gamma * step.local_steps * k.constants.l * first;
  return SpeedupPrediction{
      first, allowance, first,
      fmt::format("tr 𝒜C̄ = {:.4f} ± {:.4f} (first-order remainder γHL)", first, allowance)};
}

ClaimResult run(const Context& ctx) {
  return run_speedup(
      ctx, {.id = kId,
            .family = "logistic",
            .problem_for = [](int n) -> std::shared_ptr<const theory::Problem> {
              return std::make_shared<theory::LogisticProblem>(pooled_clients_logistic(n));
            },
            .predict = first_order_prediction,
            .title = "Linear speed-up on logistic regression: tr Cov_π · N/γ against N",
            .file = "linear-speedup-logistic.svg",
            .caption = "tr Cov_π · N/γ against N for FedAvg and Scaffold on logistic regression "
                       "(N clients each holding the same 160 samples, d = 2): flat in N = linear "
                       "speed-up; error bars: ±2 s.e. across 20 replications; black: first-order "
                       "tr 𝒜C̄.",
            .margin = kMargin,
            .slope_margin = kSlopeMargin});
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::dynamics, 2},
                    .card = kCard,
                    .values = {{"margin", kMargin}, {"slope_margin", kSlopeMargin}},
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
