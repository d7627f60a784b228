// Claim optimisers.fednova (THEORY (A2), (A2a), (A2b)).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/fednova.hpp"
#include "theory/problems/optimum.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::optimisers {
namespace {

using theory::UnequalStepsAggregation;

constexpr const char* kId = "optimisers.fednova";

constexpr const char* kCard = R"(
Summary: With unequal local steps FedAvg converges to a surrogate optimum; FedNova to x*, paying in noise.
Statement: Wang et al. (2020): when clients run different numbers of local steps H_c, FedAvg
  optimises the surrogate Σ_c (H_c/ΣH) f_c instead of f ("objective inconsistency"), and FedNova's
  normalised averaging removes it. On quadratics, exactly: as γ → 0 plain FedAvg's stationary mean
  tends to the surrogate optimum x̃ (A2a) and FedNova's to x*, both at rate O(γ); derived here
  (A2b), the stationary covariances are γΣ₁ + O(γ²) with FedNova weighting the noise of client c
  by H̄/H_c — the clients with fewer steps count more.
Formula: (A2a) x̃ = (Σ_c H_c A_c)⁻¹ Σ_c H_c A_c b_c;  (A2b) D₀Σ₁ + Σ₁D₀ = Q₀, D₀ = (1/N) Σ_c
  w_c H_c A_c, Q₀ = (1/N²) Σ_c w_c² H_c S_c, w_c = H̄/H_c (FedNova) or 1 (FedAvg)
THEORY: (A2), (A2a), (A2b), (F2)
Setting: Exact stationary laws (theory::unequal_steps_exact) on q-small (d = 2, N = 3) with H_c =
  (1, 4, 16) and hetero-4 (d = 2, N = 4) with H_c = (1, 2, 4, 8); γ·L·max H_c ∈ {0.08, 0.04,
  0.02, 0.01, 0.005}.
Decision: deterministic. Means: the distance of plain FedAvg's mean to x̃ and of FedNova's to x*
  falls with γ at a log–log slope ≥ ${order} (O(γ) predicts 1), and plain FedAvg's distance to x*
  at the smallest γ stays ≥ ${kept}·‖x̃ − x*‖ (it tends to x̃, not x*). Covariances: the relative
  distance of the exact covariance to γΣ₁ falls at a slope ≥ ${order}, for each aggregation.
Sample row:
  | q-small, H_c = (1, 4, 16), γLH_max = 0.08 … 0.005 | FedAvg → x̃ (A2a), FedNova → x*, O(γ) |
  FedAvg–x̃ slope 1.00, FedNova–x* slope 1.00; FedAvg–x* at the smallest γ = 1.00·‖x̃ − x*‖ |
  ✅ holds |
Notes: The noise price of normalising is in each covariance row's data (tr Σ₁ of FedNova over
  plain FedAvg's). Planted: FedNova without its normalisation (w_c = 1) converges to x̃ and fails
  the mean row; (A2b) without the weights H̄/H_c (the equal-steps (γ/N)𝒜C̄ with H̄) fails the
  FedNova covariance rows.
)";

constexpr double kOrder = 0.8;  // slope allowance below the O(γ) rate 1 (γ up to 0.08/(LH_max))
constexpr double kKept = 0.8;   // plain FedAvg's distance to x* kept at the smallest γ
const std::vector<double> kGammaLH = {0.08, 0.04, 0.02, 0.01, 0.005};

struct Case {
  std::string name;
  theory::QuadraticProblem problem;
  std::vector<double> steps;
};

std::vector<Case> cases() {
  return {{"q-small", as_quadratic(default_quadratic_problems().front()), {1, 4, 16}},
          {"hetero-4", heterogeneous_speedup_problem(4), {1, 2, 4, 8}}};
}

theory::RunSetting setting(const Case& c, double gamma_lh) {
  theory::RunSetting s;
  double h_max = 0;
  for (double h : c.steps) h_max = std::max(h_max, h);
  s.gamma = gamma_lh / (c.problem.smoothness() * h_max);
  s.parameters[std::string(theory::kClientStepsKey)] = c.steps;
  return s;
}

double slope(const std::vector<double>& gammas, const std::vector<double>& y) {
  return estimators::fit_log_log_slope(gammas, y, 0.01).slope;
}

std::string steps_text(const Case& c) { return fmt::format("({})", fmt::join(c.steps, ", ")); }

Row mean_row(const Case& c, const UnequalStepsLaw& law) {
  const Vector x_star = theory::problem_constants(c.problem).x_star;
  const Vector surrogate = theory::surrogate_optimum(c.problem, setting(c, kGammaLH.front()));
  const double gap = (surrogate - x_star).norm();  // ‖x̃ − x*‖
  std::vector<double> gammas, plain_to_surrogate, nova_to_star;
  double plain_to_star = 0;
  for (double glh : kGammaLH) {
    const theory::RunSetting s = setting(c, glh);
    const Vector plain = law(c.problem, s, UnequalStepsAggregation::plain).mean;
    const Vector nova = law(c.problem, s, UnequalStepsAggregation::normalised).mean;
    gammas.push_back(s.gamma);
    plain_to_surrogate.push_back((plain - surrogate).norm());
    nova_to_star.push_back((nova - x_star).norm());
    plain_to_star = (plain - x_star).norm();
  }
  const double plain_slope = slope(gammas, plain_to_surrogate);
  const double nova_slope = slope(gammas, nova_to_star);
  Row row;
  row.setting = fmt::format("{}, H_c = {}, γLH_max = 0.08 … 0.005", c.name, steps_text(c));
  row.predicted = "FedAvg → x̃ (A2a), FedNova → x*, O(γ)";
  row.measured = fmt::format(
      "FedAvg–x̃ slope {:.2f}, FedNova–x* slope {:.2f}; FedAvg–x* at the smallest γ = "
      "{:.2f}·‖x̃ − x*‖ (‖x̃ − x*‖ = {:.3g})",
      plain_slope, nova_slope, plain_to_star / gap, gap);
  row.passed = plain_slope >= kOrder && nova_slope >= kOrder && plain_to_star >= kKept * gap;
  row.data = {{"gammas", gammas},
              {"plain_to_surrogate", plain_to_surrogate},
              {"fednova_to_optimum", nova_to_star},
              {"surrogate_gap", gap},
              {"plain_slope", plain_slope},
              {"fednova_slope", nova_slope}};
  kit::gate_exact(row, "plain_slope", plain_slope);
  kit::gate_exact(row, "fednova_slope", nova_slope);
  kit::gate_exact(row, "surrogate_gap", gap);
  return row;
}

Row covariance_row(const Case& c, UnequalStepsAggregation aggregation, const UnequalStepsLaw& law,
                   const UnequalStepsFirstOrderCov& first_order) {
  const bool nova = aggregation == UnequalStepsAggregation::normalised;
  std::vector<double> gammas, errors;
  for (double glh : kGammaLH) {
    const theory::RunSetting s = setting(c, glh);
    const Matrix exact = law(c.problem, s, aggregation).cov;
    const Matrix first = first_order(c.problem, s, aggregation);
    gammas.push_back(s.gamma);
    errors.push_back((exact - first).norm() / first.norm());
  }
  const double fitted = slope(gammas, errors);
  // The noise price of normalising: tr Σ₁ of FedNova over plain FedAvg's, at the smallest γ.
  const theory::RunSetting small = setting(c, kGammaLH.back());
  const double price =
      theory::unequal_steps_first_order_cov(c.problem, small, UnequalStepsAggregation::normalised)
          .trace() /
      theory::unequal_steps_first_order_cov(c.problem, small, UnequalStepsAggregation::plain)
          .trace();
  Row row;
  row.setting = fmt::format("{}, {}, H_c = {}, γLH_max = 0.08 … 0.005", c.name,
                            nova ? "FedNova" : "FedAvg", steps_text(c));
  row.predicted = "Cov_π = γΣ₁ (A2b), relative remainder O(γ)";
  row.measured = fmt::format("relative error {:.1e} (slope {:.2f}); tr Σ₁ FedNova/FedAvg = {:.3f}",
                             fmt::join(errors, ", "), fitted, price);
  row.passed = fitted >= kOrder;
  row.data = {{"gammas", gammas}, {"errors", errors}, {"slope", fitted}, {"noise_price", price}};
  kit::gate_exact(row, "slope", fitted);
  return row;
}

}  // namespace

ClaimResult run_fednova(const Context& /*ctx*/, const UnequalStepsLaw& law,
                        const UnequalStepsFirstOrderCov& first_order) {
  ClaimResult out;
  for (const Case& c : cases()) {
    out.rows.push_back(mean_row(c, law));
    for (const auto a : {UnequalStepsAggregation::plain, UnequalStepsAggregation::normalised}) {
      out.rows.push_back(covariance_row(c, a, law, first_order));
    }
  }
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return run_fednova(ctx, theory::unequal_steps_exact, theory::unequal_steps_first_order_cov);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::optimisers, 11},
                                        .card = kCard,
                                        .values = {{"order", kOrder}, {"kept", kKept}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
