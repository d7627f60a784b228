// Claim linear-sa.fedavg-exact-mean.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/closed_forms/scafflsa_mean.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/linear_sa/common.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::linear_sa {
namespace {

constexpr const char* kId = "linear-sa.fedavg-exact-mean";

constexpr const char* kCard = R"(
Summary: FedAvg's exact stationary mean on federated TD and least squares equals SCAFFLSA's closed
  form, and the simulated chain has the exact mean and covariance.
Statement: With multiplicative noise the stationary law of FedAvg is not Gaussian, but its mean and
  covariance are exact (the round is affine with random coefficients independent of the state). The
  mean is the fixed point of the mean field and equals [SCAFFLSA]'s closed form; a simulation of
  the chain agrees with both moments.
Formula: E_π[x] = x* + (mean_c(I − (I − γĀ_c)^H))⁻¹ mean_c(I − (I − γĀ_c)^H)(θ_c − x*), θ_c =
  Ā_c⁻¹b̄_c;  Cov_π(x) solves Σ = MΣMᵀ + Q(Σ) (THEORY (L1))
THEORY: (L1), §11
Setting: td-garnet (d = 8, N = 10, Ā non-symmetric), ls-diabetes (d = 10, N = 10) and ls-digits
  (d = 65, N = 100) (problems/linear_sa_problems.hpp): H ∈ {1, 2, 5, 10} × γL ∈ {0.01, 0.1} for the closed form;
  a simulation of FedAvg on td-garnet at H = 5, γL = 0.05: ${replications} replications of
  ${chains} chains, ${rounds} recorded rounds (kit/stationary_run.hpp).
Decision: closed form: ‖fedavg_mean_lsa − closed form‖ ≤ 1e-9 (‖x*‖ + 1) (two LU routes of
  condition ≤ 1/(γμH) ≈ 1e4 on O(1) data: error ≲ 1e-11, margin 100×); simulation: Hotelling T² of
  the replication means against the exact mean and of the covariance entries against the exact
  covariance, α = ${alpha} each, with TOSTs within ${margin} (of √tr Σ and of max |Σ_ij|)
Sample row:
  | td-garnet, H = 10, γL = 0.1 | [SCAFFLSA] closed form | ‖difference‖ 1.1e-14 (tolerance 3.1e-09;
  ‖E_π[x] − x*‖ = 0.00546) | ✅ |
Notes: fedavg_mean_lsa sums P_c = Σ_{h<H}(I − γĀ_c)^h and never inverts Ā_c; the closed form
  (theory/closed_forms/scafflsa_mean.hpp) inverts every Ā_c: independent routes.
Margin: the simulation row's TOSTs, δ = ${margin}: Monte Carlo against an exact law, no remainder.
)";

using theory::Algorithm;

constexpr double kAlpha = kFamilyAlpha / 2.0;

Row closed_form_row(const NamedProblem& np, const theory::LinearSaProblem& p, int h,
                    double gamma_l) {
  const theory::RunSetting s{gamma_l / p.smoothness(), h};
  const Vector mean = theory::fedavg_mean_lsa(p, s);
  const Vector closed = theory::scafflsa_fedavg_mean(p, s);
  const double difference = (mean - closed).norm();
  const double tolerance = round_off_zero(p);
  Row row;
  row.setting = fmt::format("{}, H = {}, γL = {}", np.name, h, gamma_l);
  row.predicted = "[SCAFFLSA] closed form";
  row.measured = fmt::format("‖difference‖ {:.1e} (tolerance {:.1e}; ‖E_π[x] − x*‖ = {:.3g})",
                             difference, tolerance, (mean - p.solution()).norm());
  row.passed = difference <= tolerance;
  row.data = {{"problem", np.name},       {"H", h},
              {"gamma", s.gamma},         {"difference", difference},
              {"tolerance", tolerance},   {"bias_norm", (mean - p.solution()).norm()},
              {"mean", kit::to_std(mean)}};
  kit::gate(row, "difference", difference, tolerance);
  return row;
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto& defaults = default_linear_sa_problems();
  double largest_bias = 0;
  for (const NamedProblem* np : {&defaults.garnet_td, &defaults.diabetes, &defaults.digits}) {
    const theory::LinearSaProblem& p = as_linear_sa(*np);
    for (int h : {1, 2, 5, 10}) {
      for (double gamma_l : {0.01, 0.1}) {
        out.rows.push_back(closed_form_row(*np, p, h, gamma_l));
        largest_bias = std::max(largest_bias, out.rows.back().data["bias_norm"].get<double>());
      }
    }
  }
  out.rows.push_back(simulated_row(ctx, kId, defaults.garnet_td, Algorithm::fedavg,
                                   {0.05 / as_linear_sa(defaults.garnet_td).smoothness(), 5},
                                   kAlpha));
  out.note = fmt::format("Largest ‖E_π[x] − x*‖ over the closed-form rows: {:.3g}.", largest_bias);
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::linear_sa, 2},
                                        .card = kCard,
                                        .values = simulation_card_values(kAlpha),
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::linear_sa
