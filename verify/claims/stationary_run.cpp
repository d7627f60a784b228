#include "verify/claims/stationary_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "estimators/burn_in.hpp"

namespace fedverify::claims {

StationaryRun run_stationary(const theory::Problem& problem, const StationaryRunSpec& spec) {
  const auto t0 = std::chrono::steady_clock::now();
  StationaryRun out;
  // Burn-in: the chains start at `start` (close to the stationary mean), so the initial
  // distance is O(stationary spread) plus, for Scaffold, the control variates' distance to
  // their fixed point (O(ζ)); a residual of 1e-6 per unit of initial distance is far below
  // the MCSE of any run here (≥ 1e-4 of the spread).
  out.burn_in = estimators::burn_in_rounds({spec.contraction, 1.0, 1.0, 1e-6});
  const int per_replica = spec.chains / spec.replications;
  estimators::SimulationSpec s;
  s.algorithm = spec.algorithm;
  s.step = spec.step;
  s.chains = per_replica;
  s.rounds = out.burn_in + spec.rounds;
  s.burn_in = out.burn_in;
  s.threads = spec.threads;
  s.initial_state = spec.start;
#ifdef FEDVERIFY_PLANTED_ERRORS
  s.scaffold_bug = spec.scaffold_bug;
#endif
  const int d = problem.dim();
  Vector mean_sum = Vector::Zero(d);
  Matrix mean_cov_sum = Matrix::Zero(d, d);
  Matrix cov_sum = Matrix::Zero(d, d);
  for (int g = 0; g < spec.replications; ++g) {
    s.seed = spec.seed * 1000003ULL + static_cast<std::uint64_t>(g);
    const auto r = estimators::simulate(problem, s);
    out.chain_steps += r.chain_steps;
    if (r.diverged) {
      out.diverged = true;
      out.divergence = r.divergence;
      return out;
    }
    out.replicas.push_back(r.moments);
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

namespace {

// Hotelling test of "E[v] = target" from G i.i.d. replications v_1..v_G (columns): exact
// F(m, G − m) calibration for Gaussian v, whatever the autocorrelation inside each replication.
estimators::Decision replication_test(const Matrix& v, const Vector& target, double alpha) {
  const auto g = v.cols();
  const Vector mean = v.rowwise().mean();
  const Matrix centred = v.colwise() - mean;
  const Matrix mean_cov = centred * centred.transpose() / ((g - 1.0) * g);
  return estimators::hotelling_mean_test(mean, mean_cov, g, target, alpha);
}

Vector vech(const Matrix& m) {
  const auto d = m.rows();
  Vector v(d * (d + 1) / 2);
  int k = 0;
  for (int j = 0; j < d; ++j) {
    for (int i = 0; i <= j; ++i) v(k++) = m(i, j);
  }
  return v;
}

}  // namespace

estimators::Decision mean_test(const StationaryRun& run, const Vector& predicted, double alpha) {
  Matrix v(predicted.size(), static_cast<Eigen::Index>(run.replicas.size()));
  for (std::size_t r = 0; r < run.replicas.size(); ++r)
    v.col(static_cast<Eigen::Index>(r)) = run.replicas[r].mean;
  return replication_test(v, predicted, alpha);
}

estimators::Decision covariance_test(const StationaryRun& run, const Matrix& predicted,
                                     double alpha) {
  const Vector target = vech(predicted);
  Matrix v(target.size(), static_cast<Eigen::Index>(run.replicas.size()));
  for (std::size_t r = 0; r < run.replicas.size(); ++r)
    v.col(static_cast<Eigen::Index>(r)) = vech(run.replicas[r].cov);
  return replication_test(v, target, alpha);
}

}  // namespace fedverify::claims
