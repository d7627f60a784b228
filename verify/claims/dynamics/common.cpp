#include "verify/claims/dynamics/common.hpp"

#include "estimators/samplers/chains.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics {

Matrix stationary_sample(const Context& ctx, const theory::Problem& p,
                         const theory::StepSetting& step, const Vector& x_start, int chains,
                         int rounds, std::uint64_t seed, int threads) {
  estimators::ChainEnsemble e(p, kit::sampler_options(ctx, theory::Algorithm::fedavg, step, seed),
                              x_start, chains);
  e.advance(rounds, threads, [](const estimators::ChainEnsemble&) { return true; });
  return e.state();
}

}  // namespace fedverify::claims::dynamics
