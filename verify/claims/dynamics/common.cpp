#include "verify/claims/dynamics/common.hpp"

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
                               int threads) {
  Trajectory tr;
  auto record = [&](const estimators::ChainEnsemble& e) {
    const Matrix dev = e.state().colwise() - x_star;
    const Eigen::ArrayXd sq = dev.colwise().squaredNorm().transpose().array();
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
  return tr;
}

}  // namespace fedverify::claims::dynamics
