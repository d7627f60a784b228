// The samplers of L2GD+, L2SGD++ and compressed L2GD (estimators/samplers/l2gd.hpp) against their
// exact moments (THEORY (P6); theory/algorithms/l2gd_plus.hpp, l2gd_compressed.hpp) on a small
// heterogeneous quadratic: the mean over K chains of ‖x^k − x(λ)‖² must agree with the exact
// E‖x^k − x(λ)‖² at every recorded k, and the final mean model with the exact mean, within
// z·SE (two-sided, Bonferroni over every comparison of a test, family level α = 1e-3). The chains
// are independent, so SE = sd/√K is the Monte Carlo standard error of each mean.
//
// Samplers and closed forms are sibling layers, so their agreement is checked here, on problems
// of verify/claims/problems/personalised_problems.hpp.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <vector>

#include "estimators/samplers/l2gd.hpp"
#include "theory/algorithms/l2gd_compressed.hpp"
#include "theory/algorithms/l2gd_plus.hpp"
#include "verify/claims/problems/personalised_problems.hpp"

namespace fedverify {
namespace {

constexpr double kFamilyAlpha = 1e-3;
constexpr int kIterations = 60;
constexpr int kChains = 4000;

double z_two_sided(double alpha, int tests) {
  return boost::math::quantile(boost::math::normal(), 1 - alpha / (2.0 * tests));
}

// Compares the simulation with the exact chain run from `e0` (the model block first).
void expect_agreement(const estimators::L2gdSimulationResult& sim,
                      const std::vector<theory::AffineBranch>& branches, const Vector& e0,
                      int clients, int dim) {
  ASSERT_FALSE(sim.diverged);
  const Eigen::Index models = static_cast<Eigen::Index>(clients) * dim;
  const int tests = kIterations + static_cast<int>(models);
  const double z = z_two_sided(kFamilyAlpha, tests);
  theory::BranchedMoments exact(branches, e0);
  double worst = 0;
  for (int k = 1; k <= kIterations; ++k) {
    exact.step();
    const double dev = (sim.mse_mean[k] - exact.mean_square(0, models)) / sim.mse_se[k];
    worst = std::max(worst, std::abs(dev));
    EXPECT_LE(std::abs(dev), z) << "k = " << k;
  }
  const Vector mean = exact.mean().head(models);
  for (int i = 0; i < clients; ++i) {
    for (int r = 0; r < dim; ++r) {
      const double expected = sim.x_lambda(r, i) + mean(i * dim + r);
      EXPECT_LE(std::abs(sim.final_mean(r, i) - expected), z * sim.final_se(r, i))
          << "client " << i << ", coordinate " << r;
    }
  }
  std::printf("max |z| of E|x^k - x(l)|^2 over k <= %d: %.2f (threshold %.2f)\n", kIterations,
              worst, z);
}

const theory::QuadraticProblem& problem() {
  static const auto q = claims::make_quadratic(4, 2, 0.2, 1.0, 31);
  return q;
}

estimators::L2sgdPlusSpec vr_spec(bool full, int working) {
  estimators::L2sgdPlusSpec spec;
  spec.setting = {0.5, 0.3, 0.6};
  spec.chains = kChains;
  spec.iterations = kIterations;
  spec.seed = 77;
  spec.full_local_gradients = full;
  spec.working = working;
  return spec;
}

TEST(VarianceReducedSamplers, L2gdPlusFollowsItsExactMoments) {
  const auto spec = vr_spec(true, 0);
  const auto sim = estimators::simulate_l2sgd_plus(problem(), spec);
  expect_agreement(sim, theory::variance_reduced_branches(problem(), spec.setting, {}, {}),
                   theory::variance_reduced_start(problem(), spec.setting, {}), 4, 2);
}

TEST(VarianceReducedSamplers, L2sgdPlusPlusFollowsItsExactMoments) {
  const auto spec = vr_spec(false, 2);  // quadratic: one term per client, τ = 2 of 4 working
  const auto sim = estimators::simulate_l2sgd_plus(problem(), spec);
  expect_agreement(sim,
                   theory::variance_reduced_branches(problem(), spec.setting, {}, {.working = 2}),
                   theory::variance_reduced_start(problem(), spec.setting, {}), 4, 2);
}

TEST(VarianceReducedSamplers, CompressedL2gdFollowsItsExactMoments) {
  estimators::L2gdSimulationSpec spec;
  spec.setting = {0.5, 0.3, 0.3};
  spec.chains = kChains;
  spec.iterations = kIterations;
  spec.seed = 78;
  spec.uplink = {theory::CompressorKind::random_k, 1};
  spec.downlink = {theory::CompressorKind::random_k, 1};
  const auto sim = estimators::simulate_l2gd(problem(), spec);
  expect_agreement(sim, theory::compressed_l2gd_branches(problem(), spec.setting, 1, 1, false),
                   theory::flatten(-sim.x_lambda), 4, 2);
}

// A planted sampler difference must be caught by the same comparison: L2SGD++ simulated with all
// clients working (L2GD+) against L2SGD++'s exact moments.
TEST(VarianceReducedSamplers, ComparisonSeesTheWorkingSet) {
  const auto spec = vr_spec(true, 0);
  const auto sim = estimators::simulate_l2sgd_plus(problem(), spec);
  const auto branches =
      theory::variance_reduced_branches(problem(), spec.setting, {}, {.working = 2});
  theory::BranchedMoments exact(branches,
                                theory::variance_reduced_start(problem(), spec.setting, {}));
  double worst = 0;
  for (int k = 1; k <= kIterations; ++k) {
    exact.step();
    worst = std::max(worst, std::abs(sim.mse_mean[k] - exact.mean_square(0, 8)) / sim.mse_se[k]);
  }
  EXPECT_GT(worst, z_two_sided(kFamilyAlpha, kIterations));
}

}  // namespace
}  // namespace fedverify
