// Claim linear-sa.scaffold-td-unbiased.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/linear_sa/common.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::linear_sa {
namespace {

constexpr const char* kId = "linear-sa.scaffold-td-unbiased";

constexpr const char* kCard = R"(
Summary: On federated TD with heterogeneous clients Scaffold's stationary mean is exactly x*, where
  FedAvg's carries the heterogeneity bias.
Statement: Scaffold removes the heterogeneity bias of federated TD(0) (SCAFFLSA): with local steps
  its exact stationary mean is the TD fixed point x*, although the noise depends on the state and Ā
  is not symmetric, while FedAvg's exact mean is off by γ(H−1)b_h + O(γ²H²).
Formula: Scaffold: E_π[x] = x* exactly;  FedAvg: E_π[x] − x* = γ(H−1)b_h + O(γ²H²) ≠ 0 for H ≥ 2
THEORY: (L1), (S3), §11
Setting: td-garnet (problems/linear_sa_problems.hpp: 30-state Garnet, d = 8, N = 10, kernel
  heterogeneity 10); H ∈ {2, 5, 10} × γL ∈ {0.01, 0.1}, exact moments; and a simulation of Scaffold
  at H = 5, γL = 0.05: ${replications} replications of ${chains} chains, ${rounds} recorded rounds.
Decision: exact rows: ‖E_π[x] − x*‖ of Scaffold ≤ the round-off 1e-9 (‖x*‖ + 1) (linear_sa/common.hpp)
  and FedAvg's above 100 times it; simulation: Hotelling T² of the replication means against x* and
  of the covariance entries against Scaffold's exact covariance, α = ${alpha} each, with TOSTs
  within ${margin}
Sample row:
  | td-garnet, H = 10, γL = 0.1 | Scaffold: 0 (exact); FedAvg: ≠ 0 | Scaffold 1.1e-16, FedAvg 5.5e-3
  (round-off 3.1e-9) | ✅ |
Notes: Scaffold's exact mean is x* by (L1) itself (the fixed point of its mean field, ξ_c = −(Ā_c x*
  − b̄_c)), so its exact rows contrast it with FedAvg's; the check that a Scaffold chain has that
  mean is the simulation row, which planted Scaffold round bugs fail.
Margin: the simulation row's TOSTs, δ = ${margin}: Monte Carlo against an exact law.
)";

using theory::Algorithm;

constexpr double kAlpha = kFamilyAlpha / 2.0;

Row exact_row(const NamedProblem& np, const theory::LinearSaProblem& p, int h, double gamma_l) {
  const theory::RunSetting s{gamma_l / p.smoothness(), h};
  const double scaffold = (exact(p, Algorithm::scaffold, s).mean - p.solution()).norm();
  const double fedavg = (exact(p, Algorithm::fedavg, s).mean - p.solution()).norm();
  const double round_off = round_off_zero(p);
  Row row;
  row.setting = fmt::format("{}, H = {}, γL = {}", np.name, h, gamma_l);
  row.predicted = "Scaffold: 0 (exact); FedAvg: ≠ 0";
  row.measured = fmt::format("‖E_π[x] − x*‖: Scaffold {:.1e}, FedAvg {:.2e} (round-off {:.1e})",
                             scaffold, fedavg, round_off);
  row.passed = scaffold <= round_off && fedavg > 100.0 * round_off;
  row.data = {{"problem", np.name},         {"H", h},
              {"gamma", s.gamma},           {"scaffold_bias_norm", scaffold},
              {"fedavg_bias_norm", fedavg}, {"round_off", round_off}};
  kit::gate(row, "scaffold_bias_norm", scaffold, round_off);
  kit::gate_exact(row, "fedavg_bias_norm", Vector::Constant(1, fedavg), kit::kExactRelative);
  return row;
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const NamedProblem& np = default_linear_sa_problems().garnet_td;
  const theory::LinearSaProblem& p = as_linear_sa(np);
  for (int h : {2, 5, 10}) {
    for (double gamma_l : {0.01, 0.1}) out.rows.push_back(exact_row(np, p, h, gamma_l));
  }
  out.rows.push_back(
      simulated_row(ctx, kId, np, Algorithm::scaffold, {0.05 / p.smoothness(), 5}, kAlpha));
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::linear_sa, 3},
                                        .card = kCard,
                                        .values = simulation_card_values(kAlpha),
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::linear_sa
