// The claims about the algorithms the thesis names (THEORY §12: FedNova, …) can fail: each is run
// (quick grid) with a planted perturbation of the law or formula it compares with, and must then
// fail. As verify/claim_perturbations_slowtest.cpp, which holds the other families;
// docs/PERTURBATIONS.md lists every row.
#include <gtest/gtest.h>

#include "theory/algorithms/fednova.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "verify/claim_perturbations.hpp"
#include "verify/claims/optimisers/optimisers.hpp"

namespace fedverify {
namespace {

using perturbations::fails;
using perturbations::quick;
using perturbations::run_as;
using theory::UnequalStepsAggregation;

// FedNova without its normalisation (its law is plain FedAvg's with the same H_c): its mean tends
// to the surrogate optimum, not x*, and the mean rows fail; and (A2b) for FedNova without the
// weights H̄/H_c on the clients' noise (the equal-steps (γ/N)𝒜C̄): its relative error stays O(1)
// on q-small (H_c = 1, 4, 16), slope ≈ 0.
TEST(ClaimPerturbations, FednovaCatchesAMissingNormalisationAndUnweightedNoise) {
  const auto unnormalised = [](const theory::QuadraticProblem& q, const theory::RunSetting& s,
                               UnequalStepsAggregation /*a*/) {
    return theory::unequal_steps_exact(q, s, UnequalStepsAggregation::plain);
  };
  const auto unweighted = [](const theory::QuadraticProblem& q, const theory::RunSetting& s,
                             UnequalStepsAggregation a) {
    if (a == UnequalStepsAggregation::plain) return theory::unequal_steps_first_order_cov(q, s, a);
    return Matrix(s.gamma / q.num_clients() * theory::expansion_coefficients(q).a_noise);
  };
  EXPECT_TRUE(fails("fednova, normalisation dropped",
                    run_as("optimisers.fednova", quick(), [&](const claims::Context& c) {
                      return claims::optimisers::run_fednova(c, unnormalised,
                                                             theory::unequal_steps_first_order_cov);
                    })));
  EXPECT_TRUE(fails("fednova, noise not weighted by H̄/H_c",
                    run_as("optimisers.fednova", quick(), [&](const claims::Context& c) {
                      return claims::optimisers::run_fednova(c, theory::unequal_steps_exact,
                                                             unweighted);
                    })));
}

}  // namespace
}  // namespace fedverify
