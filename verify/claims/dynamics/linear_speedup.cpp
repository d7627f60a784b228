// Claim dynamics.linear-speedup.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/closed_forms/exact.hpp"
#include "verify/claims/dynamics/dynamics.hpp"
#include "verify/claims/dynamics/speedup.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::dynamics {
namespace {

constexpr const char* kId = "dynamics.linear-speedup";

// Equivalence margin (relative, per-N rows and slope), declared in the card.
constexpr double kMargin = 0.05;

constexpr const char* kCard = R"(
Summary: The stationary covariance of FedAvg and Scaffold scales like γ/N (linear speed-up in N).
Statement: With heterogeneous clients the stationary covariance of FedAvg and Scaffold scales like
  γ/N up to a relative O(γ): at a fixed step size, tr Cov_π · N/γ = tr 𝒜C̄ + O(γ) for every N, so
  the slope of log tr Cov_π against log N is −1 + O(γ), and the simulated chains agree with the
  exact law.
Formula: Cov_π = (γ/N) 𝒜C̄ + O(γ²);  heterogeneous clients with 𝐇, C̄ fixed in N (the clients'
  (1/N) Σ_c A_c², (1/N) Σ_c A_cS_c not: the O(γ²) part moves with N)
THEORY: (F2), (S2), (F5), (S6)
Setting: heterogeneous_speedup_problem(N) (verify/claims/problems/dynamics_problems.hpp; d = 2), N ∈
  {1, 2, 4, 8, 16}; FedAvg and Scaffold at one step γ = ${gamma_l}/L_ref (L_ref the largest
  smoothness over the five problems), H = ${h}; 20 replications of 32 (quick) or 64 chains, 600 or
  1600 recorded rounds. The prediction is the EXACT stationary covariance (F5)/(S6).
Decision: exact (deterministic), per algorithm: the exact slope s(γ) of log tr Cov_π against log N
  deviates from −1 by D(γ) = s(γ) + 1, a remainder of order ≥ 1 in γ (linear speed-up at first
  order): orders p₁ = log₂(D(γ)/D(γ/2)), p₂ = log₂(D(γ/2)/D(γ/4)), extrapolated p* = 2p₂ − p₁
  (Richardson on p(γ) = p* + O(γ)); passes iff p* ≥ 1 − |p₁ − p₂| (the last correction is the
  error estimate of the extrapolation). Simulated (α = 0.01 family-wise, Bonferroni over 12 tests):
  per N a two-sided Student-t test of the replication mean of tr Cov·N/γ against the exact value;
  per algorithm the fitted slope of log tr Cov_π against log N against the exact slope s(γ)
  (Student-t, its s.e. propagated from the runs' replication errors, 19 dof): the O(γ²) part of
  the slope is D(γ), taken from the exact chain (dynamics/speedup.hpp).
Sample row:
  | quadratic, fedavg, exact slope deviation D(γ) = s(γ) + 1, γL_ref = 0.1, H = 2 | order ≥ 1 in
  γ (linear speed-up up to O(γ)) | D = 3.08e-03, 1.51e-03, 7.51e-04 at γ, γ/2, γ/4; order 1.000 ±
  0.011 (p₁ 1.022, p₂ 1.011) | ✅ holds |
Notes: The per-N tests are decide.hpp (e) (z_agreement, Student-t with 19 dof); the slope's
  standard error is √(Σ_N w_N² (se_N/m_N)²), w_N the least-squares weights (delta method for the
  logarithm, the five runs independent).
Margin: δ = ${margin} (relative) of the exact tr Cov·N/γ (per N) and of the slope (scale |−1|): the
  prediction is the exact stationary covariance (F5)/(S6), so there is no remainder to allow for; δ
  is the resolution that matters (a missing 1/N moves the slope by 100 %).
)";
constexpr double kGammaL = 0.1;  // γ·L_ref, with H = 2
constexpr int kLocalSteps = 2;

std::shared_ptr<const theory::QuadraticProblem> problem_for(int n) {
  return std::make_shared<theory::QuadraticProblem>(heterogeneous_speedup_problem(n));
}

double reference_smoothness() {
  double l = 0;
  for (int n : speedup_clients()) l = std::max(l, problem_for(n)->smoothness());
  return l;
}

// The exact slope of log tr Cov_π against log N at step γ.
double exact_slope(const ExactMomentsFormula& exact, theory::Algorithm a, double gamma) {
  std::vector<double> log_n, log_trace;
  for (int n : speedup_clients()) {
    log_n.push_back(std::log(n));
    log_trace.push_back(std::log(exact(*problem_for(n), a, {gamma, kLocalSteps}).cov.trace()));
  }
  return estimators::fit_slope(log_n, log_trace, 0.5).slope;  // α unused: the slope only
}

// (i) The deviation of the exact slope from −1 is a remainder of order ≥ 1 in γ.
Row order_row(const ExactMomentsFormula& exact, theory::Algorithm a, double gamma) {
  const std::vector<double> gammas = {gamma, gamma / 2, gamma / 4};
  std::vector<double> dev;
  dev.reserve(gammas.size());
  for (double g : gammas) dev.push_back(exact_slope(exact, a, g) + 1.0);
  Row row;
  row.setting = fmt::format(
      "quadratic, {}, exact slope deviation D(γ) = s(γ) + 1, γL_ref = {}, "
      "H = {}",
      theory::to_string(a), kGammaL, kLocalSteps);
  row.predicted = "order ≥ 1 in γ (linear speed-up up to O(γ))";
  const bool resolved = dev[0] != 0.0 && dev[1] != 0.0 && dev[2] != 0.0;
  const double p1 = resolved ? std::log2(std::abs(dev[0] / dev[1])) : 0.0;
  const double p2 = resolved ? std::log2(std::abs(dev[1] / dev[2])) : 0.0;
  const double extrapolated = 2 * p2 - p1;
  const double error = std::abs(p1 - p2);
  row.passed = resolved && std::isfinite(extrapolated) && extrapolated >= 1.0 - error;
  row.measured = fmt::format(
      "D = {:.2e}, {:.2e}, {:.2e} at γ, γ/2, γ/4; order {:.3f} ± {:.3f} "
      "(p₁ {:.3f}, p₂ {:.3f})",
      dev[0], dev[1], dev[2], extrapolated, error, p1, p2);
  row.data = {{"gamma", gammas},  {"slope_deviation", dev},      {"order_p1", p1},
              {"order_p2", p2},   {"order", extrapolated},       {"order_error", error},
              {"H", kLocalSteps}, {"clients", speedup_clients()}};
  kit::gate_exact(row, "slope_deviation", dev[0], 1e-12);
  return row;
}

}  // namespace

ClaimResult linear_speedup(const Context& ctx, const ExactMomentsFormula& exact) {
  const double gamma = kGammaL / reference_smoothness();
  // (ii) Simulated against exact, N by N and in the slope (allowance 0: the prediction is exact,
  // and its slope already contains the O(γ²) deviation D(γ)).
  ClaimResult out = run_speedup(
      ctx,
      {.id = kId,
       .family = "quadratic",
       .gamma_l = kGammaL,
       .local_steps = kLocalSteps,
       .problem_for = [](int n) -> std::shared_ptr<const theory::Problem> {
         return problem_for(n);
       },
       .predict =
           [&exact](const Context&, theory::Algorithm a, const theory::Problem& p,
                    const theory::ExpansionCoefficients& k, const theory::RunSetting& step) {
             const auto& q = dynamic_cast<const theory::QuadraticProblem&>(p);
             const double scale = q.num_clients() / step.gamma;
             const double value = exact(q, a, step).cov.trace() * scale;
             const double first = k.a_noise.trace();  // tr((γ/N)𝒜C̄)·N/γ = tr 𝒜C̄      THEORY (F2)
             return SpeedupPrediction{
                 value, 0.0, first, 1.0,
                 fmt::format("exact {:.4f} (first order tr 𝒜C̄ = {:.4f})", value, first)};
           },
       .slope_text = "log tr Cov_π (exact slope s(γ) predicted)",
       .title =
           "Linear speed-up, heterogeneous clients: tr Cov_π · N/γ against N (γL = 0.1, H = 2)",
       .file = "linear-speedup.svg",
       .caption = "tr Cov_π · N/γ against N for FedAvg and Scaffold on heterogeneous clients "
                  "(different Hessians and noises, 𝐇 and C̄ fixed in N): simulated (±2 s.e. "
                  "across 20 replications) and exact; black: first-order tr 𝒜C̄.",
       .margin = kMargin,
       .slope_margin = kMargin});
  for (theory::Algorithm a : {theory::Algorithm::fedavg, theory::Algorithm::scaffold}) {
    out.rows.push_back(order_row(exact, a, gamma));
  }
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  return linear_speedup(
      ctx, [](const theory::QuadraticProblem& q, theory::Algorithm a, const theory::RunSetting& s) {
        return theory::exact_moments(q, a, s);
      });
}

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::dynamics, 1},
                    .card = kCard,
                    .values = {{"gamma_l", kGammaL}, {"h", kLocalSteps}, {"margin", kMargin}},
                    .sweep = true,
                    .run = run});

}  // namespace
}  // namespace fedverify::claims::dynamics
