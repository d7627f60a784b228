// FedRR's round (estimators/samplers/algorithms/fedrr.cpp): the two FedAvg runs at γ and 2γ and
// their noise coupling, THEORY (R0).
#include <gtest/gtest.h>

#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::options;
using verify::quadratic;

// FedRR (R0): χ = 2 x^{(γ)} − x^{(2γ)}; with shared noise the runs are FedAvg at γ and 2γ with
// the same seed, with independent noise the 2γ run uses other streams.
TEST(Engine, FedRRCombinesTwoFedAvgRuns) {
  const auto q = quadratic(3, 2, 1.0);
  SamplerOptions shared = options(Algorithm::fedrr, 0.1, 2);
  shared.coupling = theory::NoiseCoupling::shared;
  ChainEnsemble rr_shared(q, shared, Vector::Ones(3), 10);
  ChainEnsemble rr_indep(q, options(Algorithm::fedrr, 0.1, 2), Vector::Ones(3), 10);
  ChainEnsemble at_gamma(q, options(Algorithm::fedavg, 0.1, 2), Vector::Ones(3), 10);
  ChainEnsemble at_2gamma(q, options(Algorithm::fedavg, 0.2, 2), Vector::Ones(3), 10);
  for (ChainEnsemble* e : {&rr_shared, &rr_indep, &at_gamma, &at_2gamma}) e->advance(3, 1, {});
  EXPECT_EQ(rr_shared.run(0), at_gamma.state());
  EXPECT_EQ(rr_shared.run(1), at_2gamma.state());
  EXPECT_EQ(rr_shared.state(), Matrix(2.0 * at_gamma.state() - at_2gamma.state()));
  EXPECT_EQ(rr_indep.run(0), at_gamma.state());
  EXPECT_GT((rr_indep.run(1) - at_2gamma.state()).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_EQ(rr_indep.chain_steps(), 2 * at_gamma.chain_steps());
}

}  // namespace
}  // namespace fedverify::estimators
