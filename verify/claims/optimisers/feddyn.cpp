// Claim optimisers.feddyn (THEORY (A3), docs/THEORY-FedDyn.md (FD2), (FD4)).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/feddyn.hpp"
#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::optimisers {
namespace {

constexpr const char* kId = "optimisers.feddyn";

constexpr const char* kCard = R"(
Summary: FedDyn's stationary mean is x* exactly, and its covariance does not vanish as γ → 0.
Statement: Acar et al. (2021): FedDyn's dynamic regulariser removes the client drift: its
  deterministic fixed point is (x*, ∇f_1(x*), …, ∇f_N(x*)) for every γ, H and α (FD2), so on
  quadratics its stationary mean is x* exactly — no heterogeneity bias, unlike FedAvg's
  γ(H − 1)b_h. Derived here (FD4): at fixed α its stationary covariance tends to a non-zero
  limit as γ → 0 (FedAvg's and Scaffold's are (γ/N)𝒜C̄ → 0).
Formula: (FD2) E_π[x] = x*;  (FD4) lim_{γ→0} Cov_π(x) = (1/(NH)) Σ_λ Π_λ C̄ Π_λ / (2λ(λ + α)),
  𝐇 = Σ_λ λΠ_λ
THEORY: (A3), (FD2), (FD4)
Setting: Exact stationary laws (THEORY-FedDyn (FD3)) on q-small (d = 2, N = 3) and hetero-4
  (d = 2, N = 4); FD2 over γL ∈ {0.02, 0.1}, H ∈ {1, 4, 16}, α/L ∈ {0.1, 1}, against FedAvg's
  exact mean at the same γ and H; FD4 at H ∈ {1, 4}, α = 0.1L, γL = 10^{−2} … 10^{−6}.
Decision: deterministic. FD2: ‖E_π[x] − x*‖ ≤ ${round_off}·‖x*‖ in every setting (round-off of
  one dense solve of size d(N + 1)). FD4: the relative error of the limit falls with γ at a
  log–log slope ≥ ${order} over γL ≤ 10^{−4} (O(γ) predicts 1) and tr Cov_π changes by < 10 %
  between γL = 10^{−3} and 10^{−4} (a covariance ∝ γ would change by 90 %).
Sample row:
  | q-small, H = 4, α = 0.1L, γL = 1e-2 … 1e-6 | Cov_π → (FD4) limit, error O(γ) | relative
  error 1.1e-01, 7.8e-02, 3.3e-02, 5.0e-03, 5.3e-04 (slope 0.90 over γL ≤ 1e-4); tr Cov_π
  changes 0.4 % from 1e-3 to 1e-4 | ✅ holds |
Notes: On quadratics with additive noise FedDyn is unbiased at any step; its price is the
  covariance floor of (FD4), which a smaller step does not remove (a larger α does). The limit
  is derived for identical clients; on heterogeneous ones it is checked, not proved.
)";

constexpr double kRoundOff = 1e-10;
constexpr double kOrder = 0.8;
constexpr double kCovRoundOff = 1e-9;  // relative round-off of Cov_π at γL ≥ 1e-6 (gate below)
const std::vector<double> kGammaL = {0.02, 0.1};
const std::vector<int> kLocalSteps = {1, 4, 16};
const std::vector<double> kAlphaOverL = {0.1, 1.0};
// γL of the small-step rows; the slope is fitted over the smallest three (the O(γ) regime starts
// late when 𝐇's eigenvalues are close: q-small's error is 1.2e-2 at γL = 1e-4, then ×0.1 per
// decade).
const std::vector<double> kSmallGammaL = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
constexpr std::size_t kFitted = 3;

theory::RunSetting setting(double gamma, int h, double alpha) {
  theory::RunSetting s;
  s.gamma = gamma;
  s.local_steps = h;
  s.parameters[std::string(theory::kDynAlphaKey)] = {alpha};
  return s;
}

Row fixed_point_row(const std::string& name, const theory::QuadraticProblem& q,
                    const FedDynMean& mean) {
  const double l = q.smoothness();
  const Vector x_star = theory::problem_constants(q).x_star;
  double worst = 0, fedavg_least = HUGE_VAL;
  std::string worst_at;
  int settings = 0;
  for (double gl : kGammaL) {
    for (int h : kLocalSteps) {
      for (double a : kAlphaOverL) {
        const theory::RunSetting s = setting(gl / l, h, a * l);
        const double err = (mean(q, s) - x_star).norm() / x_star.norm();
        if (err >= worst) {
          worst = err;
          worst_at = fmt::format("γL = {:g}, H = {}, α = {:g}L", gl, h, a);
        }
        ++settings;
        if (h > 1) {
          theory::RunSetting f;
          f.gamma = gl / l;
          f.local_steps = h;
          const auto fedavg = theory::exact_moments(q, theory::Algorithm::fedavg, f);
          fedavg_least = std::min(fedavg_least, (fedavg.mean - x_star).norm() / x_star.norm());
        }
      }
    }
  }
  Row row;
  row.setting = fmt::format("{}: γL ∈ {{0.02, 0.1}}, H ∈ {{1, 4, 16}}, α ∈ {{0.1, 1}}·L", name);
  row.predicted = "(FD2) E_π[x] = x* exactly";
  row.measured =
      fmt::format("{} settings; worst ‖E_π[x] − x*‖/‖x*‖ = {:.1e} ({}); FedAvg at H > 1: ≥ {:.2g}",
                  settings, worst, worst_at, fedavg_least);
  row.passed = worst <= kRoundOff;
  row.data = {{"worst_relative_error", worst}, {"fedavg_least_relative_bias", fedavg_least}};
  kit::gate_exact(row, "fedavg_least_relative_bias", fedavg_least);
  return row;
}

Row small_step_row(const std::string& name, const theory::QuadraticProblem& q, int h,
                   const FedDynSmallStepCov& limit) {
  const double l = q.smoothness();
  std::vector<double> gammas, errors, traces;
  for (double gl : kSmallGammaL) {
    const theory::RunSetting s = setting(gl / l, h, 0.1 * l);
    const Matrix cov = theory::feddyn_exact(q, s).cov;
    const Matrix lim = limit(q, s);
    gammas.push_back(s.gamma);
    errors.push_back((cov - lim).norm() / lim.norm());
    traces.push_back(cov.trace());
  }
  const std::vector<double> last_g(gammas.end() - kFitted, gammas.end());
  const std::vector<double> last_e(errors.end() - kFitted, errors.end());
  const estimators::SlopeEstimate fit = estimators::fit_log_log_slope(last_g, last_e, 0.01);
  const double change = std::abs(traces[2] - traces[1]) / traces[1];
  Row row;
  row.setting = fmt::format("{}, H = {}, α = 0.1L, γL = 1e-2 … 1e-6", name, h);
  row.predicted = "Cov_π → (FD4) limit, error O(γ)";
  row.measured = fmt::format(
      "relative error {:.1e} (slope {:.2f} over γL ≤ 1e-4); tr Cov_π changes {:.1f} % from "
      "1e-3 to 1e-4",
      fmt::join(errors, ", "), fit.slope, 100 * change);
  row.passed = fit.slope >= kOrder && change < 0.1;
  row.data = {{"gammas", gammas}, {"errors", errors}, {"traces", traces}, {"slope", fit.slope}};
  // The slope is a deterministic number, but its errors at γL ≤ 1e-4 are O(γ) differences of
  // covariances whose round-off (the divided-form Lyapunov solve at γL = 1e-6) is ~1e-10
  // relative and differs between CPUs (Eigen's blocking follows the cache sizes): a relative
  // perturbation r of the covariances moves log e_i by r/e_i, and the slope, whose weights on
  // the three log e_i have |w| ≤ 1/(2 ln 10) < 0.5, by at most 0.5·r/min e_i. Gate with r =
  // kCovRoundOff (10× the estimate): measured between an Intel and an AMD machine, 6e-5 at
  // min e ≈ 1e-6, under this 5e-4.
  const double min_error = *std::min_element(last_e.begin(), last_e.end());
  kit::gate(row, "slope", fit.slope, 0.5 * kCovRoundOff / min_error);
  return row;
}

}  // namespace

ClaimResult run_feddyn(const Context& /*ctx*/, const FedDynMean& mean,
                       const FedDynSmallStepCov& limit) {
  ClaimResult out;
  const auto& small = as_quadratic(default_quadratic_problems().front());
  const theory::QuadraticProblem hetero = heterogeneous_speedup_problem(4);
  out.rows.push_back(fixed_point_row("q-small", small, mean));
  out.rows.push_back(fixed_point_row("hetero-4", hetero, mean));
  for (int h : {1, 4}) {
    out.rows.push_back(small_step_row("q-small", small, h, limit));
    out.rows.push_back(small_step_row("hetero-4", hetero, h, limit));
  }
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return run_feddyn(
      ctx,
      [](const theory::QuadraticProblem& q, const theory::RunSetting& s) {
        return Vector(theory::feddyn_exact(q, s).mean);
      },
      theory::feddyn_small_step_cov);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::optimisers, 10},
                                        .card = kCard,
                                        .values = {{"round_off", kRoundOff}, {"order", kOrder}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
