// Claim quadratic.remainder-h-exponent.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/quadratic/common.hpp"
#include "verify/claims/quadratic/quadratic.hpp"

namespace fedverify::claims::quadratic {
namespace {

using theory::Algorithm;

constexpr const char* kId = "quadratic.remainder-h-exponent";

constexpr const char* kCard = R"(
Summary: The O(γ²) remainders grow like H² for FedAvg and not at all with H for Scaffold's
  covariance.
Statement: On quadratics the remainders of the first-order expansions are γ² times closed-form
  coefficients whose H-dependence is known: FedAvg's mean remainder grows like γ²H² (not the
  γ^{3/2}H printed in some statements), its second moment about x* like γ²H² (the squared
  heterogeneity bias), and Scaffold's covariance remainder does not grow with H at all.
Formula: E_π[x] − x* − γ(H−1)b_h = γ² c₂(H) + O(γ³H³), c₂(H) ~ H²;  E_π[(x−x*)(x−x*)ᵀ] − (γ/N)𝒜C̄ =
  γ² (X₁(H) + (H−1)² b_h b_hᵀ) + O(γ³H³), X₁(H) ~ H;  Scaffold: Cov_π(x) − (γ/N)𝒜C̄ = γ² (1/N)
  𝒜(𝐇𝒜C̄𝐇) + O(γ³H²) (no H)
THEORY: (F7), (S7), (F2), (F3), (S2)
Setting: q-small and q-gen5; exact moments (F5), (S6) at γL = ${gamma_l} and twice that for H ∈ {1,
  2, 4, 8, 16} (the mean from H = 2: at H = 1 it is exactly x*); the first-order moments through
  kit::first_order (so a planted formula error reaches the remainder), the second-order
  coefficients as a parameter (tests plant a wrong one).
Decision: deterministic, per (problem, moment) and every H: the relative error e_H(γ) = ‖R(γ, H)/γ²
  − closed(H)‖ / ‖closed(H)‖ is O(γ) — e_H(γ) ≤ ${halving}·e_H(2γ) + round-off (0.5 for an error
  linear in γ, plus 20 % for its own O(γ²) part at γHL ≤ 0.06) — so the closed form is the limit of
  the exact remainder; and the H-exponent of ‖R(γ, ·)‖ (least-squares slope of log ‖R‖ against log
  H) is the closed form's within the slope shift that the e_H allow (estimators::slope_shift_bound
  with δ_H ∈ [log(1 − e), log(1 + e)], e = max_H e_H(γ)).
Sample row:
  | q-small, fedavg mean, γL = 0.002 and 0.004, H ∈ {2, …, 16} | γ² c₂(H) (F7), degree 2 in H:
  H-exponent 1.62 over the grid | max e_H 1.5e-02 (halves with γ; at 2γ 3.0e-02); H-exponent 1.63
  ± 0.02 | ✅ holds |
Notes: The round-off floor of an exact moment difference is quadratic/common.hpp's
  (round_off_zero), relative to γ²‖closed(H)‖.
)";
constexpr double kGammaL = 2e-3;  // the smaller of the two steps; the other is 2γ
const std::vector<int> kLocalSteps = {1, 2, 4, 8, 16};
// e(γ) ≤ kHalving·e(2γ): an O(γ) error halves; 20 % for the O(γ²) part of the error.
constexpr double kHalving = 0.6;
constexpr double kInf = std::numeric_limits<double>::infinity();

// One remainder and its closed-form γ² coefficient.
struct Moment {
  std::string name;     // e.g. "fedavg mean"
  std::string formula;  // e.g. "γ² c₂(H) (F7)"
  int degree = 0;       // the closed form's degree in H (its exponent as H → ∞)
  int first_h = 1;      // smallest H of the grid (the mean remainder is 0 at H = 1)
  std::function<Matrix(double gamma, int h)> remainder;  // exact − first order
  std::function<Matrix(int h)> coefficient;              // its γ² coefficient
};

std::vector<Moment> moments(const Context& ctx, const theory::QuadraticProblem& q,
                            const theory::ExpansionCoefficients& k,
                            const SecondOrderFormula& second_order) {
  const Vector& xs = k.constants.x_star;
  auto second_moment = [xs](const theory::ExactMoments& ex) -> Matrix {
    const Vector bias = ex.mean - xs;
    return ex.cov + bias * bias.transpose();
  };
  std::vector<Moment> v;
  v.push_back({"fedavg mean", "γ² c₂(H) (F7)", 2, 2,
               [&, xs](double g, int h) -> Matrix {
                 const theory::RunSetting s{g, h};
                 return theory::exact_moments(q, Algorithm::fedavg, s).mean -
                        kit::first_order(ctx, k, Algorithm::fedavg, s).mean;
               },
               [&](int h) -> Matrix { return second_order(q, k, h).mean; }});
  v.push_back({"fedavg second moment about x*", "γ² (X₁(H) + (H−1)² b_h b_hᵀ) (F7)", 2, 1,
               [&, second_moment](double g, int h) -> Matrix {
                 const theory::RunSetting s{g, h};
                 return second_moment(theory::exact_moments(q, Algorithm::fedavg, s)) -
                        kit::first_order(ctx, k, Algorithm::fedavg, s).cov;
               },
               [&](int h) -> Matrix {
                 const Vector& bh = k.b_heterogeneity;
                 return second_order(q, k, h).cov + (h - 1.0) * (h - 1.0) * bh * bh.transpose();
               }});
  v.push_back({"scaffold second moment about x*", "γ² (1/N)𝒜(𝐇𝒜C̄𝐇) (S7)", 0, 1,
               [&, second_moment](double g, int h) -> Matrix {
                 const theory::RunSetting s{g, h};
                 return second_moment(theory::exact_moments(q, Algorithm::scaffold, s)) -
                        kit::first_order(ctx, k, Algorithm::scaffold, s).cov;
               },
               [&](int) -> Matrix { return theory::scaffold_second_order_cov(k); }});
  return v;
}

Row moment_row(const std::string& problem_name, const Moment& m, double l, double round_off) {
  const double g = kGammaL / l;
  std::vector<double> hs, log_h, log_r, log_c, e_small, e_large;
  bool halves = true;
  for (int h : kLocalSteps) {
    if (h < m.first_h) continue;
    const Matrix c = m.coefficient(h);
    const Matrix r1 = m.remainder(g, h), r2 = m.remainder(2 * g, h);
    const double cn = c.norm();
    // A zero coefficient (or remainder) has no relative error or logarithm: the row fails.
    const bool degenerate = !(cn > 0.0) || !(r1.norm() > 0.0);
    const double e1 = degenerate ? kInf : (r1 / (g * g) - c).norm() / cn;
    const double e2 = degenerate ? kInf : (r2 / (4 * g * g) - c).norm() / cn;
    // Round-off of an exact moment difference (quadratic/common.hpp), relative to γ²‖c‖.
    const double floor = round_off / (g * g * cn);
    if (!(e1 <= kHalving * e2 + floor)) halves = false;
    hs.push_back(h);
    log_h.push_back(std::log(h));
    log_r.push_back(degenerate ? 0.0 : std::log(r1.norm()));
    log_c.push_back(degenerate ? 0.0 : std::log(cn));
    e_small.push_back(e1);
    e_large.push_back(e2);
  }
  const double e_max = *std::max_element(e_small.begin(), e_small.end());
  const double exponent = estimators::fit_slope(log_h, log_r, kSlopeAlpha).slope;
  const double predicted = estimators::fit_slope(log_h, log_c, kSlopeAlpha).slope;
  const double allowance =
      e_max < 1.0 ? estimators::slope_shift_bound(log_h, std::log1p(-e_max), std::log1p(e_max))
                  : std::numeric_limits<double>::infinity();
  Row row;
  row.setting =
      fmt::format("{}, {}, γL = {} and {}, H ∈ {{{}, …, {}}}", problem_name, m.name, kGammaL,
                  2 * kGammaL, static_cast<int>(hs.front()), static_cast<int>(hs.back()));
  row.predicted = fmt::format("{}, degree {} in H: H-exponent {:.2f} over the grid", m.formula,
                              m.degree, predicted);
  row.measured =
      fmt::format("max e_H {:.1e} ({} with γ; at 2γ {:.1e}); H-exponent {:.2f} ± {:.2f}", e_max,
                  halves ? "halves" : "does NOT halve",
                  *std::max_element(e_large.begin(), e_large.end()), exponent, allowance);
  row.passed = halves && std::isfinite(e_max) && std::abs(exponent - predicted) <= allowance;
  row.data = {{"H", hs},
              {"gamma", g},
              {"relative_error", e_small},
              {"relative_error_2gamma", e_large},
              {"h_exponent", exponent},
              {"h_exponent_predicted", predicted},
              {"h_exponent_allowance", allowance},
              {"degree_in_h", m.degree}};
  kit::gate_exact(row, "h_exponent", exponent);
  kit::gate_exact(row, "h_exponent_predicted", predicted);
  return row;
}

}  // namespace

ClaimResult remainder_h_exponent(const Context& ctx, const SecondOrderFormula& second_order) {
  ClaimResult out;
  for (const auto& np : default_quadratic_problems()) {
    const auto& q = as_quadratic(np);
    const auto k = theory::expansion_coefficients(q);
    for (const Moment& m : moments(ctx, q, k, second_order)) {
      out.rows.push_back(moment_row(np.name, m, q.smoothness(), round_off_zero(q, k)));
    }
  }
  out.note =
      "At fixed small γ the mean remainder grows like H² (γ²H²), the FedAvg second moment like "
      "H² through its squared bias, Scaffold's covariance remainder not at all: on quadratics "
      "the printed O(γ^{3/2}H) (H-exponent 1) is not the remainder's H-dependence.";
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return remainder_h_exponent(ctx, theory::fedavg_second_order);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::quadratic_exact, 4},
                                        .card = kCard,
                                        .values = {{"gamma_l", kGammaL}, {"halving", kHalving}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::quadratic
