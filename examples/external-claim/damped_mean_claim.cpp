// A claim of this project, registered in fedverify's catalogue: damping FedAvg's server step does
// not move its stationary mean. Measured by simulating this project's algorithm (fedavg-damped),
// predicted by fedverify's exact FedAvg mean (THEORY F5), decided by Hotelling's T² (decide.hpp
// (a')) with a TOST of agreement within ±5 % (decide.hpp (l)).
#include <fmt/format.h>

#include <string>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/decide.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/generators.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace external {

using namespace fedverify;

constexpr const char* kCard = R"(
Statement: FedAvg with a damped server step (β = 1/2) has FedAvg's stationary mean.
Formula: E_π[x] = (I − M)⁻¹ r, M and r of FedAvg's affine round (F5), whatever β
THEORY: (F5)
Setting: a generated quadratic (d = 2, N = 4, condition 5, seed 3), γ = 0.2, H ∈ {1, 4};
  256 chains, 4000 rounds (quick; 10000 full), burn-in 1000
Decision: Hotelling's T² of the simulated mean (batch means) against the exact FedAvg mean
Sample row:
  | H = 4 | x = [..] | x̂ = [..] (T² p = 0.4) | ✅ |
Margin: ±5 % of ‖mean‖∞ (the resolution that matters for a bias of order γ)
)";

constexpr double kMargin = 0.05;
// γ and the burn-in: the damped chain contracts by about 1 − βγμH per round (μ = 1/5 here), so
// at γ = 0.2, H = 1 its relaxation time is ≈ 50 rounds; 1000 burn-in rounds leave an initial bias
// of e^-20, and the batch means (one per chain, ≥ 3000 rounds) are long against it.
constexpr double kGamma = 0.2;

claims::ClaimResult run(const claims::Context& ctx) {
  theory::QuadraticGeneratorOptions g;
  g.dim = 2;
  g.clients = 4;
  g.condition = 5;
  g.seed = 3;
  const theory::QuadraticProblem problem = theory::generate_quadratic(g);
  claims::ClaimResult result;
  for (const int h : {1, 4}) {
    const theory::RunSetting step{kGamma, h};
    const theory::ExactMoments exact =
        theory::exact_moments(problem, theory::Algorithm::fedavg, step);
    estimators::SimulationSpec spec;
    spec.algorithm = theory::Algorithm{"fedavg-damped"};
    spec.step = step;
    spec.chains = 256;
    spec.rounds = ctx.options.quick ? 4000 : 10000;
    spec.burn_in = 1000;
    spec.seed = ctx.options.seed + 1000 * static_cast<std::uint64_t>(ctx.attempt) + h;
    spec.threads = ctx.options.threads;
    const estimators::SimulationResult sim = estimators::simulate(problem, spec);
    const double alpha = claims::kFamilyAlpha;
    const estimators::Decision rule =
        estimators::hotelling_mean_test(sim.moments, exact.mean, alpha);
    claims::Row row;
    row.setting = fmt::format("H = {}", h);
    row.predicted = fmt::format("x = [{:.4f}, {:.4f}]", exact.mean(0), exact.mean(1));
    row.measured = fmt::format("x̂ = [{:.4f}, {:.4f}] (T² p = {:.2g})", sim.moments.mean(0),
                               sim.moments.mean(1), rule.p_value);
    row.passed = rule.passed;
    row.data = {{"p_value", rule.p_value}, {"seed", spec.seed}};
    const double delta = kMargin * exact.mean.cwiseAbs().maxCoeff();
    const estimators::Decision tost =
        estimators::equivalence_test(sim.moments.mean, sim.moments.mean_mcse, 0,
                                     exact.mean.array() - delta, exact.mean.array() + delta, alpha);
    claims::kit::add_equivalence(row, kMargin, tost.passed, tost.description,
                                 std::numeric_limits<double>::quiet_NaN());
    row.equivalence.margin_text = "±5 %";
    for (int i = 0; i < 2; ++i) {
      row.gates.push_back({fmt::format("mean[{}]", i), exact.mean(i), 1e-12});
    }
    result.rows.push_back(row);
  }
  return result;
}

[[maybe_unused]] const bool registered =
    claims::register_claim({.id = "external.damped-mean",
                            .order = {claims::Section::quadratic_simulation, 1000},
                            .card = kCard,
                            .run = run});

}  // namespace external
