#include "verify/claims/dynamics/common.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "estimators/samplers/chains.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics {

Matrix stationary_sample(const Context& ctx, const theory::Problem& p,
                         const theory::RunSetting& step, const Vector& x_start, int chains,
                         int rounds, std::uint64_t seed, int threads) {
  estimators::ChainEnsemble e(p, kit::sampler_options(ctx, theory::Algorithm::fedavg, step, seed),
                              x_start, chains);
  e.advance(rounds, threads, [](const estimators::ChainEnsemble&) { return true; });
  return e.state();
}

Trajectory simulate_trajectory(const Context& ctx, const theory::Problem& q, theory::Algorithm a,
                               const theory::RunSetting& step, const Vector& x0,
                               const Vector& x_star, int chains, int rounds, std::uint64_t seed,
                               int threads, int tail_from) {
  Trajectory tr;
  Eigen::ArrayXd tail_sum = Eigen::ArrayXd::Zero(chains);
  int tail_rounds = 0;
  auto record = [&](const estimators::ChainEnsemble& e) {
    const Matrix dev = e.state().colwise() - x_star;
    const Eigen::ArrayXd sq = dev.colwise().squaredNorm().transpose().array();
    if (tail_from >= 0 && static_cast<int>(tr.mse.size()) >= tail_from) {
      tail_sum += sq;
      ++tail_rounds;
    }
    const double m = sq.mean();
    tr.mse.push_back(m);
    const double k = static_cast<double>(sq.size());
    tr.mse_se.push_back(std::sqrt((sq - m).square().sum() / (k - 1.0) / k));
    tr.mean_norm.push_back(sq.sqrt().mean());
    tr.bias_norm.push_back(dev.rowwise().mean().norm());
    return true;
  };
  estimators::ChainEnsemble e(q, kit::sampler_options(ctx, a, step, seed), x0, chains);
  record(e);
  e.advance(rounds, threads, record);
  if (tail_rounds > 0) {
    const Eigen::ArrayXd avg = tail_sum / tail_rounds;
    const double k = static_cast<double>(chains);
    tr.tail_mean = avg.mean();
    tr.tail_se = std::sqrt((avg - tr.tail_mean).square().sum() / (k - 1.0) / k);
  }
  return tr;
}

Trajectory simulate_trajectory_with_twin(const Context& ctx, const theory::Problem& p,
                                         theory::Algorithm a, const theory::RunSetting& step,
                                         const Vector& x0, const Vector& x_star,
                                         const std::vector<double>& twin_mse, int chains,
                                         std::uint64_t seed, int threads) {
  Trajectory tr;
  const Eigen::Index d = x0.size();
  const double k = static_cast<double>(chains);
  const auto se = [k](const Eigen::ArrayXd& v, double mean) {
    return std::sqrt((v - mean).square().sum() / (k - 1.0) / k);
  };
  Eigen::ArrayXd gap = Eigen::ArrayXd::Zero(chains);
  auto record = [&](const estimators::ChainEnsemble& e) {
    const std::size_t t = tr.mse.size();
    const Matrix& z = e.state();  // (x, y) stacked, 2d × K
    const Eigen::ArrayXd twin =
        (z.bottomRows(d).colwise() - x_star).colwise().squaredNorm().transpose().array();
    const Eigen::ArrayXd diff =
        (z.topRows(d).colwise() - x_star).colwise().squaredNorm().transpose().array() - twin;
    const double m = diff.mean();
    tr.mse.push_back(twin_mse[t] + m);  // THEORY (L3)
    tr.mse_se.push_back(se(diff, m));
    if (t > 0) gap += (twin - twin_mse[t]) / twin_mse[t];
    return true;
  };
  estimators::SamplerOptions options = kit::sampler_options(ctx, a, step, seed);
  options.linearised_twin = true;
  estimators::ChainEnsemble e(p, options, x0, chains);
  record(e);
  const int rounds = static_cast<int>(twin_mse.size()) - 1;
  e.advance(rounds, threads, record);
  gap /= std::max(1, rounds);
  tr.twin_gap = gap.mean();
  tr.twin_gap_se = se(gap, tr.twin_gap);
  return tr;
}

double slowest_mean_rate(const Matrix& hessian) {
  return Eigen::SelfAdjointEigenSolver<Matrix>(symmetric_part(hessian), Eigen::EigenvaluesOnly)
      .eigenvalues()
      .minCoeff();
}

}  // namespace fedverify::claims::dynamics
