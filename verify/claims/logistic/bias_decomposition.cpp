// Claim logistic.bias-decomposition.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/logistic/common.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::claims::logistic {
namespace {

constexpr const char* kId = "logistic.bias-decomposition";

constexpr const char* kCard = R"(
Summary: Identical clients have no heterogeneity bias; large minibatches remove the stochasticity
  bias.
Statement: Homogeneous clients (identical data) have no heterogeneity bias: FedAvg's bias is γ b_s
  at every H. With a large minibatch (noise C ∝ 1/B) the stochasticity bias fades and only γ(H−1)
  b_h remains.
Formula: homogeneous: β₁ = b_s;  B = 64: β₁ = (H−1) b_h + b_s/64-scale
THEORY: (F3), §6
Setting: lr-homog (N = 10 identical clients, ∇f_c(x*) = 0 so b_h = 0) at γL = 0.2, H = 2, and
  lr-hetero-B64 (minibatch 64: C̄ and b_s shrink 64-fold) at γL = 0.1, H = 2; FedAvg; each measured
  at γ and 2γ with 16 replications (logistic/common.hpp).
Decision: Richardson combination against the first-order coefficient of each problem, Hotelling T²
  over 16 replications, α = 0.005 per row (family 0.01)
Sample row:
  | lr-homog, fedavg, γL = 0.2 and 0.4, H = 2 | 2β(γ) − β(2γ) = [0.0032, 0.0048, -0.0028] |
  2β(γ) − β(2γ) = [0.0036±0.0016, 0.0045±0.0008, -0.0024±0.0015] (Hotelling p = 0.963, …) | ✅ |
Margin: ${richardson_margin}
)";

using theory::Algorithm;

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto& problems = research_logistic_problems();
  const double alpha = kFamilyAlpha / 2.0;
  const MeasureOptions cv = control_variate_budget();
  out.rows.push_back(richardson_row(problems.breast_cancer_homogeneous, Algorithm::fedavg, 0.5, 2,
                                    ctx, kId, alpha, nullptr, "", cv));
  out.rows.push_back(richardson_row(problems.breast_cancer_large_batch, Algorithm::fedavg, 0.5, 2,
                                    ctx, kId, alpha, nullptr, "", cv));
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::logistic, 2},
                                        .card = kCard,
                                        .values = {{"richardson_margin", richardson_margin_text()}},
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::logistic
