// Claim linear-sa.remainder-order.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/remainder_order.hpp"
#include "verify/claims/linear_sa/common.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::linear_sa {
namespace {

constexpr const char* kId = "linear-sa.remainder-order";

constexpr const char* kCard = R"(
Summary: With state-dependent noise (federated TD, least squares) the first-order mean and
  covariance of FedAvg, Scaffold and FedRR are off by O(γ²) only.
Statement: On linear stochastic approximation with multiplicative noise (C_c depends on x; Ā need
  not be symmetric) the first-order expansions of the stationary mean and second moment of FedAvg,
  Scaffold and FedRR are exact up to O(γ²): 𝒜 solves Ā X + X Āᵀ = C̄(x*), b_s = 0.
Formula: E_π[x] = x* + γ(H−1)b_h + O(γ²H²);  E_π[(x−x*)(x−x*)ᵀ] = (γ/N)𝒜C̄(x*) + O(γ²)
THEORY: (L1), (L2), §11
Setting: td-garnet (federated TD(0), 30-state Garnet, d = 8, N = 10) and ls-diabetes (least
  squares, d = 10, N = 10) (problems/linear_sa_problems.hpp); FedAvg, Scaffold, FedRR; H ∈ {1, 5}
  (quick) or {1, 2, 5}; γL on a geometric grid over [1e-3, 1e-1] (4 or 7 points), L the
  per-sample constant. Exact moments (THEORY (L1)), no Monte Carlo.
Decision: log–log slope of ‖exact − first order‖ over the grid: lower 99 % confidence bound > 1.5,
  or the remainder is a round-off zero on the whole grid (linear_sa/common.hpp)
Sample row:
  | td-garnet, fedavg, H = 5, second moment | order 2 (> 1.5 required) | 2.00 [1.99, 2.01] | ✅ |
Notes: The first-order prediction comes from kit::first_order, so a planted formula error reaches
  it; (L2) also replaced 𝒜 by the symmetric operator on sym(Ā), which leaves an O(γ) remainder.
)";

using theory::Algorithm;

// The claim is "order > 1.5": strictly better than O(γ^{3/2}), with room for grid curvature.
constexpr double kRequiredOrder = 1.5;

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const auto& defaults = default_linear_sa_problems();
  const std::vector<int> hs =
      ctx.options.quick ? std::vector<int>{1, 5} : std::vector<int>{1, 2, 5};
  for (const NamedProblem* np : {&defaults.garnet_td, &defaults.diabetes}) {
    const theory::LinearSaProblem& p = as_linear_sa(*np);
    const auto k = theory::expansion_coefficients(p);
    const double round_off = round_off_zero(p);
    for (Algorithm a : {Algorithm::fedavg, Algorithm::scaffold, Algorithm::fedrr}) {
      for (int h : hs) {
        std::vector<double> gammas, mean, second;
        for (double g : step_grid(p.smoothness(), ctx.options.quick)) {
          const theory::RunSetting s{g, h};
          const theory::ExactMoments ex = exact(p, a, s);
          const theory::FirstOrderMoments fo = kit::first_order(ctx, k, a, s);
          // The first-order covariance is about x*; the exact one about the stationary mean.
          const Vector bias = ex.mean - k.constants.x_star;
          gammas.push_back(g);
          mean.push_back((ex.mean - fo.mean).norm());
          second.push_back((ex.cov + bias * bias.transpose() - fo.cov).norm());
        }
        const std::string base = fmt::format("{}, {}, H = {}", np->name, theory::to_string(a), h);
        out.rows.push_back(
            kit::remainder_order_row(base + ", mean", gammas, mean, round_off, kRequiredOrder));
        out.rows.push_back(kit::remainder_order_row(base + ", second moment", gammas, second,
                                                    round_off, kRequiredOrder));
      }
    }
  }
  return out;
}

const bool registered = register_claim(
    {.id = kId, .order = {Section::linear_sa, 1}, .card = kCard, .alpha = 0, .run = run});

}  // namespace
}  // namespace fedverify::claims::linear_sa
