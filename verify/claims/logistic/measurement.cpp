#include "verify/claims/logistic/measurement.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <utility>

#include "estimators/statistics/moments.hpp"
#include "theory/closed_forms/linearised.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"
#include "verify/claims/problems/research_logistic_problems.hpp"

namespace fedverify::claims::logistic {
namespace {

using theory::Algorithm;

// Simulation size of one measurement (chains split over kReplications, recorded rounds).
struct Budget {
  int chains;
  int rounds;
};
Budget budget(const Context& ctx) {
  return ctx.options.quick ? Budget{kReplications * 64, 1000} : Budget{kReplications * 128, 3000};
}

}  // namespace

namespace {
// Level of the twin's consistency check (ScaledBias::twin_mean_test), per measurement: a false
// alarm fails a correct row, so it is small against the rows' α (≥ 0.001).
constexpr double kTwinCheckAlpha = 1e-4;
}  // namespace

MeasureOptions control_variate_budget(double factor) {
  return {.estimator = Estimator::control_variate,
          .replications = 40,
          .chains = 8,
          .mixing_times = 24.0 * factor};
}

const NamedProblem& bias_problem(const Context& ctx) {
  return ctx.options.quick ? default_logistic_problems().heterogeneous
                           : research_logistic_problems().breast_cancer;
}

ScaledBias measure(const NamedProblem& np, const theory::ExpansionCoefficients& k,
                   Algorithm algorithm, const theory::RunSetting& step, const Context& ctx,
                   std::uint64_t seed, const MeasureOptions& options) {
  ScaledBias out;
  out.algorithm = algorithm;
  out.step = step;
  out.seed = seed;
  out.estimator = options.estimator;
  const bool cv = options.estimator == Estimator::control_variate;
  StationaryRunSpec spec;
  spec.sampler = kit::sampler_options(ctx, algorithm, step, seed);
  // The chains start at x* and stay within O(√γ) of it; for FedRR the slower run is the one
  // with step γ.
  spec.contraction = contraction_near_optimum(k, step);
  spec.start = k.constants.x_star;
  if (cv) {
    spec.replications = options.replications;
    spec.chains = options.replications * options.chains;
    spec.rounds = static_cast<int>(std::ceil(options.mixing_times / (1.0 - spec.contraction)));
    spec.linearised_twin = true;
    // x − y starts at 0 and y at x*, both O(γ) from their stationary means: a residual of 1e-3 of
    // that distance is 0.1 % of the measured bias, a tenth of its standard error.
    spec.burn_in_residual = 1e-3;
  } else {
    const Budget b = budget(ctx);
    spec.replications = kReplications;
    spec.chains = b.chains * options.budget_factor;
    spec.rounds = b.rounds * options.budget_factor;
  }
  out.run = run_stationary(ctx, *np.problem, spec);
  if (out.run.diverged) return out;
  const int d = np.problem->dim();
  const int g_count = spec.replications;
  // THEORY (L3): the twin's exact stationary mean, added back to every replication's mean(x − y).
  const Vector m_lin =
      cv ? theory::linearised_stationary_mean(*np.problem, algorithm, step) : Vector::Zero(d);
  out.per_replica.resize(d, g_count);
  Matrix twin_means(d, g_count);
  for (int g = 0; g < g_count; ++g) {
    const Vector estimate = cv ? Vector(out.run.twin[g].mean + m_lin) : out.run.replicas[g].mean;
    out.per_replica.col(g) = (estimate - k.constants.x_star) / step.gamma;
    if (cv) twin_means.col(g) = out.run.replicas[g].mean - out.run.twin[g].mean;  // y = x − (x − y)
  }
  if (cv) {
    const auto y = estimators::replicated_mean(twin_means);
    out.twin_mean_test = hotelling(y.mean, y.mean_cov, m_lin, kTwinCheckAlpha, g_count);
  }
  const auto m = estimators::replicated_mean(out.per_replica);
  out.mean = m.mean;
  out.mean_cov = m.mean_cov;
  return out;
}

Vector predicted_coefficient(const theory::ExpansionCoefficients& k, Algorithm algorithm,
                             const theory::RunSetting& step, const Context& ctx) {
  const auto m = kit::first_order(ctx, k, algorithm, step);
  return (m.bias_heterogeneity + m.bias_stochastic) / step.gamma;
}

estimators::Decision hotelling(const Vector& mean, const Matrix& mean_cov, const Vector& target,
                               double alpha, int replications) {
  return estimators::hotelling_mean_test(mean, mean_cov, replications, target, alpha);
}

nlohmann::json run_json(const ScaledBias& m) {
  return {{"algorithm", theory::to_string(m.algorithm)},
          {"gamma", m.step.gamma},
          {"H", m.step.local_steps},
          {"seed", m.seed},
          {"estimator", m.estimator == Estimator::control_variate ? "control_variate" : "plain"},
          {"replications", m.replications()},
          {"chains", m.run.pooled.chains},
          {"burn_in", m.run.burn_in},
          {"chain_steps", m.run.chain_steps},
          {"seconds", m.run.seconds},
          {"scaled_bias", kit::to_std(m.mean)},
          {"scaled_bias_mcse", kit::to_std(m.mean_cov.diagonal().cwiseSqrt())}};
}

Matrix replica_cov_mcse(const StationaryRun& run) {
  const auto d = run.pooled.cov.rows();
  Matrix sum2 = Matrix::Zero(d, d);
  for (const auto& m : run.replicas) sum2 += (m.cov - run.pooled.cov).cwiseAbs2();
  const double g = static_cast<double>(run.replicas.size());
  return (sum2 / ((g - 1.0) * g)).cwiseSqrt();
}

RichardsonPair richardson_pair(const NamedProblem& np, const theory::ExpansionCoefficients& k,
                               Algorithm algorithm, const theory::RunSetting& step,
                               const theory::RunSetting& step2, std::string setting,
                               const Context& ctx, const char* claim_id,
                               const MeasureOptions& options) {
  RichardsonPair p;
  p.setting = std::move(setting);
  p.at_gamma = measure(np, k, algorithm, step, ctx, kit::row_seed(ctx, claim_id, p.setting + ", γ"),
                       options);
  p.at_2gamma = measure(np, k, algorithm, step2, ctx,
                        kit::row_seed(ctx, claim_id, p.setting + ", 2γ"), options);
  p.predicted = predicted_coefficient(k, algorithm, step, ctx);
  if (p.diverged()) return p;
  // Richardson–Romberg over (γ, 2γ) and the second-order coefficient, per replica.
  p.first = 2.0 * p.at_gamma.per_replica - p.at_2gamma.per_replica;
  p.second = (p.at_2gamma.per_replica - p.at_gamma.per_replica) / step.gamma;
  return p;
}

RichardsonPair richardson_pair(const NamedProblem& np, Algorithm algorithm, double gamma_l, int h,
                               const Context& ctx, const char* claim_id,
                               const MeasureOptions& options) {
  const auto k = theory::expansion_coefficients(*np.problem);
  const theory::RunSetting step{gamma_l / k.constants.l, h};
  return richardson_pair(np, k, algorithm, step, {2.0 * step.gamma, h},
                         fmt::format("{}, {}, γL = {} and {}, H = {}", np.name,
                                     theory::to_string(algorithm), gamma_l, 2 * gamma_l, h),
                         ctx, claim_id, options);
}

estimators::Decision replicate_test(const Matrix& v, const Vector& target, double alpha) {
  const auto m = estimators::replicated_mean(v);
  return hotelling(m.mean, m.mean_cov, target, alpha, static_cast<int>(v.cols()));
}

Vector local_noise_third_derivative(const theory::Problem& problem,
                                    const theory::ExpansionCoefficients& k) {
  Vector v = Vector::Zero(problem.dim());
  for (int c = 0; c < problem.num_clients(); ++c) {
    v += problem.third_derivative(c, k.constants.x_star, k.client_noise[c]);
  }
  return v / problem.num_clients();
}

}  // namespace fedverify::claims::logistic
