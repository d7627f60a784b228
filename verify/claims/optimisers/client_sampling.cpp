// Claim optimisers.client-sampling (THEORY O5).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/stationary_run.hpp"
#include "verify/claims/kit/verdict.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/quadratic/common.hpp"

namespace fedverify::claims::optimisers {
namespace {

constexpr const char* kId = "optimisers.client-sampling";

constexpr const char* kCard = R"(
Summary: Sampling S of N clients keeps FedAvg's stationary mean and adds a heterogeneity term to its
  covariance.
Statement: Sampling S of the N clients uniformly without replacement each round leaves the
  stationary mean of FedAvg unchanged (exactly, on quadratics) and adds a heterogeneity-driven term
  to the first-order stationary covariance.
Formula: E_π[x] = FedAvg's;  E_π[(x−x*)(x−x*)ᵀ] = (γ/S) 𝒜[C̄ + H(N − S)/(N − 1) · G] + O(γ²),
  G = (1/N) Σ_c ∇f_c(x*)∇f_c(x*)ᵀ
THEORY: (O5), (F2)
Setting: the default quadratic problems q-small (N = 3: S ∈ {1, 2}) and q-gen5 (N = 6: S ∈ {2, 4});
  --algo fedopt --participating S, server and client sgd; H = 5 (quick) or H ∈ {1, 5}; γL on a
  geometric grid over [1e-4, 1e-1] (5 or 10 points). Exact moments of the random-coefficient chain
  (theory/algorithms/fedopt.hpp: pairwise sums over clients, Neumann series), no Monte Carlo.
  Simulation: the fedopt sampler with --participating S at γL = ${sim_gamma_l}, H = 5 (q-small
  S = 1, q-gen5 S = 2), ${replications} independent replications of ${chains_quick} (quick) or
  ${chains} chains, ${rounds_quick} or ${rounds} recorded rounds, started at the exact mean
  (kit/stationary_run.hpp).
Decision: mean: max over the grid of ‖mean − FedAvg's exact mean‖ ≤ ${ulps} · κ(D) · ε ·
  max(1, ‖x*‖); second moment: log–log slope of ‖exact − first order‖ with lower 99 % confidence
  bound > ${order}; the same formula without the H(N − S)/(N − 1)·G term: upper bound < ${order}
  (the term is first order: the remainder is then O(γ)), checked where H(N − S) > 0; simulation:
  Hotelling tests of the simulated mean and covariance entries against the exact random-coefficient
  solution across the replications (exact F calibration whatever the autocorrelation), α = ${alpha}
  split by Bonferroni over the simulated rows and the two tests
Sample row:
  | q-gen5, H = 5, S = 2, second moment | order 2 (> 1.5 required) | 2.003 [1.998, 2.008] | ✅ |
Notes: With server and client sgd the mean equation of the sampled chain is FedAvg's (E[D_S] = D̄ by
  construction of the pairwise-sum solver), so the mean rows show no more than round-off; the
  independent confirmations are the subset enumeration (theory/algorithms/fedopt_test.cpp) and the
  simulation rows (and verify/fedopt_simulation_test.cpp). The coefficient of 𝒜G fitted to the exact covariance at the smallest γ (least squares in
  the Frobenius norm) is compared with H(N − S)/(N − 1) in the note.
Margin: simulation rows: δ = ${margin} (relative) of the stationary spread √tr Σ (mean) and of the
  largest covariance entry (covariance), as quadratic.simulated-vs-exact: the prediction is exact,
  so δ is the resolution that matters (a round that ignores --participating shrinks the covariance
  by a factor ≤ S/N, at first order); the exact rows are deterministic (round-off or remainder
  order).
)";

// The simulated rows: one (problem, S) each, at γL = kSimGammaL, H = kSimLocalSteps.
constexpr double kSimGammaL = 0.05;
constexpr int kSimLocalSteps = 5;
constexpr int kReplications = 20;  // G − 1 = 19 ≥ d(d+1)/2 = 15 (q-gen5) for the covariance test
constexpr int kChainsQuick = 20 * 64, kChains = 20 * 128;
constexpr int kRoundsQuick = 500, kRounds = 1000;  // the default report's budget: < 3 min in all
constexpr double kMargin = 0.05;
constexpr int kSimulatedRows = 2;
constexpr double kSimAlpha = kFamilyAlpha / (2.0 * kSimulatedRows);  // per test

std::vector<int> sample_sizes(int clients) {
  return clients <= 3 ? std::vector<int>{1, 2} : std::vector<int>{2, 4};
}

// The simulated stationary law of the sampled chain against fedopt_exact (THEORY O5).
Row simulated_row(const Context& ctx, const NamedProblem& np, int s_clients) {
  const auto& q = as_quadratic(np);
  const theory::RunSetting step =
      fedopt_setting(kSimGammaL / q.smoothness(), kSimLocalSteps, "sgd", "sgd", s_clients);
  const theory::ExactMoments ex = theory::exact_moments(q, kFedopt, step);
  const std::string setting = fmt::format("{}, H = {}, S = {} of {}, γL = {}, simulated", np.name,
                                          kSimLocalSteps, s_clients, q.num_clients(), kSimGammaL);
  StationaryRunSpec spec;
  spec.sampler = kit::sampler_options(ctx, kFedopt, step, kit::row_seed(ctx, kId, setting));
  spec.chains = ctx.options.quick ? kChainsQuick : kChains;
  spec.replications = kReplications;
  spec.rounds = ctx.options.quick ? kRoundsQuick : kRounds;
  spec.contraction = ex.spectral_radius;
  spec.start = ex.mean;
  const StationaryRun run = run_stationary(ctx, q, spec);
  if (run.diverged) return kit::diverged_row(setting, run.divergence);
  Row row = exact_moments_row(run, ex.mean, ex.cov, kMargin, kSimAlpha);
  row.setting = setting;
  row.predicted = "exact mean and covariance (random-coefficient solution)";
  row.data.update({{"mean", kit::to_std(run.pooled.mean)},
                   {"mean_exact", kit::to_std(ex.mean)},
                   {"cov", kit::rows_of(run.pooled.cov)},
                   {"cov_exact", kit::rows_of(ex.cov)},
                   {"participating", s_clients},
                   {"gamma", step.gamma},
                   {"chains", spec.chains},
                   {"rounds", spec.rounds},
                   {"burn_in", run.burn_in},
                   {"seed", spec.sampler.seed}});
  kit::gate_simulated(row, "mean", run.pooled.mean, replicated_means(run).se());
  kit::gate_simulated(row, "cov", vech(run.pooled.cov), replicated_covariances(run).se());
  return row;
}

ClaimResult run(const Context& ctx) {
  ClaimResult out;
  const std::vector<int> hs = ctx.options.quick ? std::vector<int>{5} : std::vector<int>{1, 5};
  std::string fitted;
  for (const auto& np : default_quadratic_problems()) {
    const auto& q = as_quadratic(np);
    const auto k = theory::expansion_coefficients(q);
    const Vector& x_star = k.constants.x_star;
    const int n = q.num_clients();
    for (int h : hs) {
      for (int s_clients : sample_sizes(n)) {
        std::vector<double> gamma, remainder, remainder_without;
        double mean_gap = 0, tolerance = 0, coefficient = 0;
        for (double g : quadratic::step_grid(q.smoothness(), ctx.options.quick)) {
          const theory::RunSetting s = fedopt_setting(g, h, "sgd", "sgd", s_clients);
          const theory::ExactMoments ex = theory::exact_moments(q, kFedopt, s);
          const theory::AffineRoundMap fedavg_map = theory::fedavg_round_map(q, {g, h});
          const theory::ExactMoments fedavg = theory::fedavg_exact(q, {g, h});
          mean_gap = std::max(mean_gap, (ex.mean - fedavg.mean).norm());
          tolerance = std::max(tolerance, mean_round_off(condition_number(fedavg_map.d), x_star));
          const theory::FirstOrderMoments first = kit::first_order(ctx, k, kFedopt, s);
          // Without the heterogeneity term: full participation's formula at S clients.
          theory::FirstOrderMoments without = kit::first_order(ctx, k, kFedopt, {g, h});
          without.cov *= static_cast<double>(n) / s_clients;
          gamma.push_back(g);
          remainder.push_back(second_moment_remainder(ex, first, x_star));
          remainder_without.push_back(second_moment_remainder(ex, without, x_star));
          if (gamma.size() == 1) {
            // Least-squares coefficient c of (γ/S)𝒜G in Σ₂ − (γ/S)𝒜C̄, Σ₂ the exact second moment.
            const Vector bias = ex.mean - x_star;
            const Matrix rest = (ex.cov + bias * bias.transpose()) * (s_clients / g) - k.a_noise;
            coefficient =
                (rest.cwiseProduct(k.a_heterogeneity)).sum() / k.a_heterogeneity.squaredNorm();
          }
        }
        const std::string base = fmt::format("{}, H = {}, S = {} of {}", np.name, h, s_clients, n);
        out.rows.push_back(fedavg_mean_row(base, mean_gap, tolerance));
        Row order = remainder_order_row(base + ", second moment", gamma, remainder);
        const double predicted = h * static_cast<double>(n - s_clients) / (n - 1);
        order.data["fitted_coefficient"] = coefficient;
        order.data["formula_coefficient"] = predicted;
        kit::gate_exact(order, "fitted_coefficient", coefficient);
        fitted += fmt::format("{}{}: fitted {:.4f} vs H(N − S)/(N − 1) = {:.4f}",
                              fitted.empty() ? "" : "; ", base, coefficient, predicted);
        out.rows.push_back(std::move(order));
        if (h * (n - s_clients) > 0) {
          out.rows.push_back(remainder_order_row(base + ", second moment without the G term", gamma,
                                                 remainder_without, true));
        }
      }
    }
  }
  for (const auto& np : default_quadratic_problems()) {
    out.rows.push_back(simulated_row(ctx, np, sample_sizes(as_quadratic(np).num_clients())[0]));
  }
  out.note = "Coefficient of (γ/S)𝒜G in the exact second moment at γL = 1e-4: " + fitted +
             ". The exact mean with sampling equals FedAvg's to round-off.";
  return out;
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::optimisers, 4},
                                        .card = kCard,
                                        .values = {{"ulps", quadratic::kRoundOffUlps},
                                                   {"order", kRequiredOrder},
                                                   {"sim_gamma_l", kSimGammaL},
                                                   {"replications", kReplications},
                                                   {"chains_quick", kChainsQuick},
                                                   {"chains", kChains},
                                                   {"rounds_quick", kRoundsQuick},
                                                   {"rounds", kRounds},
                                                   {"alpha", kFamilyAlpha},
                                                   {"margin", kMargin}},
                                        .sweep = true,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers
