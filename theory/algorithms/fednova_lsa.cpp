// FedNova's exact law on linear-sa problems (THEORY (A2) with (L1)'s round); see linear_sa.hpp.
// Client c runs its own H_c local steps y ← (I − γA(Z))y + γb(Z) from x; the server combines the
// updates with weights w_c (FedNova's H̄/H_c, or 1: FedAvg run with unequal steps), so one round is
//     x' = (I − γD) x + γ r + (1/N) Σ_c w_c ε_c,   D = (1/N) Σ_c w_c P_c Ā_c,  r = (1/N) Σ_c w_c
//     P_c b̄_c,
// P_c = Σ_{h<H_c} (I − γĀ_c)^h, ε_c client c's noise (uncorrelated with x and across clients,
// lsa_client_round), as FedAvg's (fedavg_lsa.cpp) with per-client steps and weights.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/fednova_setting.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

namespace {

struct UnequalStepsLsa {
  std::vector<int> steps;      // H_c
  std::vector<double> weight;  // w_c
  Matrix d;                    // D = (I − M)/γ
  Vector r;
};

UnequalStepsLsa unequal_steps_lsa(const LinearSaProblem& p, const RunSetting& s,
                                  UnequalStepsAggregation aggregation) {
  const int n = p.num_clients();
  const std::vector<double> steps = per_client_values(s, kClientStepsKey, n);
  const double mean_steps = std::accumulate(steps.begin(), steps.end(), 0.0) / n;
  UnequalStepsLsa out{{}, {}, Matrix::Zero(p.dim(), p.dim()), Vector::Zero(p.dim())};
  for (int c = 0; c < n; ++c) {
    const int h = static_cast<int>(steps[static_cast<std::size_t>(c)]);
    const double w = aggregation == UnequalStepsAggregation::normalised ? mean_steps / h : 1.0;
    const LsaLocalMap local = lsa_local_map(p.mean_a(c), s.gamma, h);
    out.d += (w / n) * (local.p * p.mean_a(c));  // THEORY (A2), (L1)
    out.r += (w / n) * (local.p * p.mean_b(c));
    out.steps.push_back(h);
    out.weight.push_back(w);
  }
  if (!out.d.allFinite() || !out.r.allFinite()) {
    throw InputError(fmt::format(
        "--gamma: the round map of fednova overflows double precision at gamma = {}", s.gamma));
  }
  return out;
}

// The clients' noise of one round over γ, (1/N²) Σ_c w_c² Cov(ε_c)/γ, from x ~ (mean, cov).
Matrix round_noise_over_gamma(const LinearSaProblem& p, const RunSetting& s,
                              const UnequalStepsLsa& map, const Vector& mean, const Matrix& cov) {
  const int n = p.num_clients();
  const Vector no_correction = Vector::Zero(p.dim());
  Matrix sum = Matrix::Zero(p.dim(), p.dim());
  for (int c = 0; c < n; ++c) {
    const double w = map.weight[static_cast<std::size_t>(c)];
    sum += w * w *
           lsa_client_round(p, c, s.gamma, map.steps[static_cast<std::size_t>(c)], mean, cov,
                            no_correction, nullptr, nullptr)
               .noise_over_gamma;
  }
  return sum / (static_cast<double>(n) * n);
}

// The affordability checks see H = max_c H_c (the cost is linear in the longest client's steps).
RunSetting with_longest_steps(const UnequalStepsLsa& map, const RunSetting& s) {
  RunSetting out = s;
  out.local_steps = *std::max_element(map.steps.begin(), map.steps.end());
  return out;
}

}  // namespace

ExactMoments unequal_steps_exact_lsa(const LinearSaProblem& p, const RunSetting& s,
                                     UnequalStepsAggregation aggregation) {
  validate(Algorithm{"fednova"}, s);
  const UnequalStepsLsa map = unequal_steps_lsa(p, s, aggregation);
  require_lsa_exact_affordable(p, with_longest_steps(map, s), "fednova");
  const DiscreteLyapunovSolver solver(map.d, s.gamma);
  ExactMoments out;
  out.spectral_radius = solver.spectral_radius();
  require_stationary(out.spectral_radius, s, "fednova");
  if (!solver.stable()) require_stationary(1.0, s, "fednova");
  out.mean = map.d.partialPivLu().solve(map.r);  // the mean field's fixed point, (L1)
  const auto q = [&](const Matrix& sigma) {
    return round_noise_over_gamma(p, s, map, out.mean, sigma);
  };
  out.cov = lsa_stationary_covariance(solver, q, p.dim(), s, "fednova");
  return out;
}

TrajectoryMoments unequal_steps_trajectory_lsa(const LinearSaProblem& p, const RunSetting& s,
                                               const Vector& x0, int rounds,
                                               UnequalStepsAggregation aggregation) {
  require_trajectory_rounds(rounds);
  require_with_replacement(p, "fednova's trajectory");
  validate(Algorithm{"fednova"}, s);
  const UnequalStepsLsa map = unequal_steps_lsa(p, s, aggregation);
  limits::require_closed_form_time(
      "--rounds",
      fmt::format("the exact trajectory of fednova over T = {} rounds on this linear-sa problem",
                  rounds),
      rounds * lsa_exact_seconds(p, with_longest_steps(map, s)) / kLsaMinimumPasses,
      "a lower bound: T passes of N·max H_c local steps", "use fewer rounds or local steps");
  const Matrix m = Matrix::Identity(p.dim(), p.dim()) - s.gamma * map.d;
  Vector mean = x0;
  Matrix cov = Matrix::Zero(p.dim(), p.dim());
  TrajectoryMoments out;
  out.mean.push_back(mean);
  out.trace_cov.push_back(0.0);
  for (int t = 1; t <= rounds; ++t) {
    // THEORY (T1): the noise of this round is that of x_t's law.
    const Matrix noise = s.gamma * round_noise_over_gamma(p, s, map, mean, cov);
    cov = symmetric_part(m * cov * m.transpose() + noise);
    mean = m * mean + s.gamma * map.r;
    out.mean.push_back(mean);
    out.trace_cov.push_back(cov.trace());
    require_finite_trajectory(out, t);
  }
  return out;
}

}  // namespace fedverify::theory
