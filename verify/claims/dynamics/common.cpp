#include "verify/claims/dynamics/common.hpp"

#include <Eigen/Eigenvalues>
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

double slowest_mean_rate(const Matrix& hessian) {
  return Eigen::SelfAdjointEigenSolver<Matrix>(symmetric_part(hessian), Eigen::EigenvaluesOnly)
      .eigenvalues()
      .minCoeff();
}

}  // namespace fedverify::claims::dynamics
