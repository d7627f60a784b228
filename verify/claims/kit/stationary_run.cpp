#include "verify/claims/kit/stationary_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "estimators/statistics/burn_in.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/closed_forms/bounds.hpp"
#include "verify/claims/kit/task_values.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims {

namespace {

// What run_stationary keeps of one replication's simulation (the value of its task).
struct Replication {
  estimators::MomentEstimate moments;
  bool has_twin = false;
  estimators::MomentEstimate twin;  // x − y, with the linearised twin
  std::int64_t chain_steps = 0;
  bool diverged = false;
  std::string divergence;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Replication, moments, has_twin, twin, chain_steps, diverged,
                                   divergence)

}  // namespace

StationaryRun run_stationary(const Context& ctx, const theory::Problem& problem,
                             const StationaryRunSpec& spec) {
  const auto t0 = std::chrono::steady_clock::now();
  StationaryRun out;
  // Burn-in: the chains start at `start` (close to the stationary mean), so the initial
  // distance is O(stationary spread) plus, for Scaffold, the control variates' distance to
  // their fixed point (O(ζ)); a residual of 1e-6 per unit of initial distance is far below
  // the MCSE of any run here (≥ 1e-4 of the spread). A run that measures an O(γ) quantity relative
  // to itself (the control variate's x − y, which starts at 0) may declare a larger residual.
  out.burn_in = estimators::burn_in_rounds({spec.contraction, 1.0, 1.0, spec.burn_in_residual});
  const int per_replica = spec.chains / spec.replications;
  estimators::SimulationSpec s;
  s.algorithm = spec.sampler.algorithm;
  s.step = spec.sampler.step;
  s.chains = per_replica;
  s.rounds = out.burn_in + spec.rounds;
  s.burn_in = out.burn_in;
  // Parallel over replications, each on one thread: a replication is a few hundred chains, too
  // few to split per round without the per-round barrier dominating (measured on 2 cores under
  // load: 0.8 M chain-steps/s with 2 threads per round against 12.8 M/s with one). The
  // replications are the claim's tasks (kit::spread_tasks): spread over the ranks of a report,
  // returned in index order and reduced in that order, so threads and ranks never change a number.
  s.threads = 1;
  s.initial_state = spec.start;
  s.round = spec.sampler.round;  // as built by kit::sampler_options
  s.linearised_twin = spec.linearised_twin;
  const std::vector<Replication> results = kit::spread_tasks<Replication>(
      ctx, static_cast<std::size_t>(spec.replications), [&](std::size_t g) {
        estimators::SimulationSpec sg = s;
        sg.seed = spec.sampler.seed * 1000003ULL + static_cast<std::uint64_t>(g);
        const estimators::SimulationResult r = estimators::simulate(problem, sg);
        return Replication{r.moments,
                           r.twin_difference.has_value(),
                           r.twin_difference.value_or(estimators::MomentEstimate{}),
                           r.chain_steps,
                           r.diverged,
                           r.divergence};
      });
  const int d = problem.dim();
  Vector mean_sum = Vector::Zero(d);
  Matrix mean_cov_sum = Matrix::Zero(d, d);
  Matrix cov_sum = Matrix::Zero(d, d);
  for (const auto& r : results) {
    out.chain_steps += r.chain_steps;
    if (r.diverged) {
      out.diverged = true;
      out.divergence = r.divergence;
      return out;
    }
    out.replicas.push_back(r.moments);
    if (r.has_twin) out.twin.push_back(r.twin);
    mean_sum += r.moments.mean;
    mean_cov_sum += r.moments.mean_cov;
    cov_sum += r.moments.cov;
  }
  const double gr = spec.replications;
  out.pooled = out.replicas.front();
  out.pooled.mean = mean_sum / gr;
  out.pooled.mean_cov = mean_cov_sum / (gr * gr);  // independent replications
  out.pooled.mean_mcse = out.pooled.mean_cov.diagonal().cwiseSqrt();
  out.pooled.cov = cov_sum / gr;
  out.pooled.samples = 0;
  for (const auto& m : out.replicas) out.pooled.samples += m.samples;
  out.pooled.chains = per_replica * spec.replications;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

double contraction_near_optimum(const theory::ExpansionCoefficients& k,
                                const theory::RunSetting& step) {
  const double h_min =
      k.constants.hessian_at_optimum.selfadjointView<Eigen::Lower>().eigenvalues().minCoeff();
  return theory::fedavg_round_contraction(step, h_min);  // THEORY (F1)
}

namespace {

// Hotelling test of "E[v] = target" from G i.i.d. replications (replicated_mean of their d × G
// matrix): exact F(m, G − m) calibration for Gaussian v, whatever the autocorrelation inside
// each replication.
estimators::Decision replication_test(const estimators::ReplicatedMeanVector& m, std::int64_t g,
                                      const Vector& target, double alpha) {
  return estimators::hotelling_mean_test(m.mean, m.mean_cov, g, target, alpha);
}

}  // namespace

Vector vech(const Matrix& m) {
  const auto d = m.rows();
  Vector v(d * (d + 1) / 2);
  int k = 0;
  for (int j = 0; j < d; ++j) {
    for (int i = 0; i <= j; ++i) v(k++) = m(i, j);
  }
  return v;
}

estimators::ReplicatedMeanVector replicated_means(const StationaryRun& run) {
  Matrix v(run.pooled.mean.size(), static_cast<Eigen::Index>(run.replicas.size()));
  for (std::size_t r = 0; r < run.replicas.size(); ++r)
    v.col(static_cast<Eigen::Index>(r)) = run.replicas[r].mean;
  return estimators::replicated_mean(v);
}

estimators::ReplicatedMeanVector replicated_covariances(const StationaryRun& run) {
  const auto d = run.pooled.cov.rows();
  Matrix v(d * (d + 1) / 2, static_cast<Eigen::Index>(run.replicas.size()));
  for (std::size_t r = 0; r < run.replicas.size(); ++r)
    v.col(static_cast<Eigen::Index>(r)) = vech(run.replicas[r].cov);
  return estimators::replicated_mean(v);
}

estimators::Decision mean_test(const StationaryRun& run, const Vector& predicted, double alpha) {
  return replication_test(replicated_means(run), static_cast<std::int64_t>(run.replicas.size()),
                          predicted, alpha);
}

estimators::Decision covariance_test(const StationaryRun& run, const Matrix& predicted,
                                     double alpha) {
  return replication_test(replicated_covariances(run),
                          static_cast<std::int64_t>(run.replicas.size()), vech(predicted), alpha);
}

Row exact_moments_row(const StationaryRun& run, const Vector& mean, const Matrix& cov,
                      double margin, double alpha) {
  Row row;
  const auto mtest = mean_test(run, mean, alpha);
  const auto ctest = covariance_test(run, cov, alpha);
  const double rel_cov = (run.pooled.cov - cov).norm() / cov.norm();
  row.measured = fmt::format(
      "mean: Hotelling F = {:.2f} (p = {:.2f}); cov: rel. diff {:.2e}, Hotelling p = {:.2f}; "
      "{:.1e} chain-steps",
      mtest.statistic, mtest.p_value, rel_cov, ctest.p_value, static_cast<double>(run.chain_steps));
  row.passed = mtest.passed && ctest.passed;
  const auto g = static_cast<std::int64_t>(run.replicas.size());
  kit::agreement(row, margin, "mean (scale √tr Σ)", replicated_means(run), g, mean,
                 std::sqrt(cov.trace()), alpha);
  kit::agreement(row, margin, "cov entries (scale max |Σ_ij|)", replicated_covariances(run), g,
                 vech(cov), cov.cwiseAbs().maxCoeff(), alpha);
  row.data = {{"mean_p_value", mtest.p_value},
              {"cov_p_value", ctest.p_value},
              {"cov_relative_difference", rel_cov},
              {"alpha_per_test", alpha},
              {"chain_steps", run.chain_steps}};
  return row;
}

Row exact_mean_row(const StationaryRun& run, const Vector& mean, const Matrix& cov, double margin,
                   double alpha) {
  Row row;
  const auto mtest = mean_test(run, mean, alpha);
  row.measured = fmt::format("mean: Hotelling F = {:.2f} (p = {:.2f}); {:.1e} chain-steps",
                             mtest.statistic, mtest.p_value, static_cast<double>(run.chain_steps));
  row.passed = mtest.passed;
  kit::agreement(row, margin, "mean (scale √tr Σ)", replicated_means(run),
                 static_cast<std::int64_t>(run.replicas.size()), mean, std::sqrt(cov.trace()),
                 alpha);
  row.data = {
      {"mean_p_value", mtest.p_value}, {"alpha_per_test", alpha}, {"chain_steps", run.chain_steps}};
  return row;
}

}  // namespace fedverify::claims
