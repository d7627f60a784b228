// Claim quadratic.scaffold-unbiased.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/quadratic/common.hpp"
#include "verify/claims/quadratic/quadratic.hpp"

namespace fedverify::claims::quadratic {
namespace {

constexpr const char* kId = "quadratic.scaffold-unbiased";

constexpr const char* kCard = R"(
Summary: On quadratics Scaffold's stationary mean is exactly x*; FedAvg's is biased.
Statement: Scaffold's stationary mean is exactly x* on quadratic problems, even with heterogeneous
  clients; FedAvg's is biased.
Formula: E_π[x_Scaffold] = x*
THEORY: (S3)
Setting: the default quadratic problems q-small and q-gen5; γL = 0.05, H ∈ {2, 5, 10}; exact
  stationary means of both algorithms (theory/closed_forms/exact.hpp).
Decision: ‖m − x*‖ below round-off for Scaffold and above 10⁶ × round-off for FedAvg
Sample row:
  | q-small, γL = 0.05, H = 2 | Scaffold ‖m − x*‖ = 0; FedAvg's ≫ round-off |
  | Scaffold 1.11e-16, FedAvg 2.39e-03 (round-off 3.4e-13) | ✅ holds |
Notes: Round-off as in quadratic/common.hpp; FedAvg must be far above it so that the contrast means
  something.
)";

// FedAvg must be resolvably biased (10⁶ round-off units) for the contrast to mean anything.
constexpr double kResolvedBias = 1e6;

}  // namespace

ClaimResult scaffold_unbiased(const Context& /*ctx*/, const ScaffoldMeanFormula& scaffold_mean) {
  ClaimResult out;
  for (const auto& np : default_quadratic_problems()) {
    const auto& q = as_quadratic(np);
    const auto k = theory::expansion_coefficients(q);
    const double round_off = round_off_zero(q, k);
    for (int h : {2, 5, 10}) {
      const theory::RunSetting s{0.05 / q.smoothness(), h};
      const double scaffold = (scaffold_mean(q, s) - k.constants.x_star).norm();
      const double fedavg = (theory::fedavg_exact(q, s).mean - k.constants.x_star).norm();
      Row row;
      row.setting = fmt::format("{}, γL = 0.05, H = {}", np.name, h);
      row.predicted = "Scaffold ‖m − x*‖ = 0; FedAvg's ≫ round-off";
      row.measured = fmt::format("Scaffold {:.2e}, FedAvg {:.2e} (round-off {:.1e})", scaffold,
                                 fedavg, round_off);
      row.passed = scaffold <= round_off && fedavg > kResolvedBias * round_off;
      row.data = {{"scaffold_bias", scaffold},
                  {"fedavg_bias", fedavg},
                  {"round_off", round_off},
                  {"gamma", s.gamma},
                  {"H", h}};
      kit::gate(row, "scaffold_bias", scaffold, round_off);
      kit::gate_exact(row, "fedavg_bias", fedavg, round_off);
      out.rows.push_back(row);
    }
  }
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return scaffold_unbiased(ctx, [](const theory::QuadraticProblem& q, const theory::RunSetting& s) {
    return theory::scaffold_exact(q, s).x_mean();
  });
}

const bool registered = register_claim(
    {.id = kId, .order = {Section::quadratic_exact, 2}, .card = kCard, .alpha = 0, .run = run});

}  // namespace
}  // namespace fedverify::claims::quadratic
