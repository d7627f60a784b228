// The FedSGDA sampler (THEORY M0, M5): chains are independent of K and of the thread count (bit
// for bit); with clients whose samples are all alike every minibatch is the full batch, so a
// chain is FedGDA on the full-batch game (run_fedgda with zero noise), which checks the
// minibatch gradient formulas against the game's blocks (A = 0, B = −Gᵀ, C = ½W, c = −b); and
// the stationary mean of small steps is near the GMM equilibrium.
#include "estimators/samplers/games/fedsgda.hpp"

#include <gtest/gtest.h>

#include "estimators/samplers/games/fedgda.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/linear_iv_generator.hpp"

namespace fedverify::estimators {
namespace {

Matrix run(const theory::LinearIvGame& iv, const theory::GdaSetting& s, int batch, int chains,
           int threads, int rounds) {
  Matrix state = Matrix::Zero(iv.theta_dim() + iv.tau_dim(), chains);
  const int diverged =
      run_fedsgda({iv, s, batch, 5, threads}, state, rounds, [](int, const Matrix&) {});
  EXPECT_EQ(diverged, 0);
  return state;
}

theory::LinearIvGame small_iv() {
  theory::LinearIvGeneratorOptions o;
  o.clients = 3;
  o.samples = 50;
  o.seed = 4;
  return theory::generate_linear_iv(o);
}

TEST(FedsgdaSampler, ChainsDependOnNeitherKNorThreads) {
  const theory::LinearIvGame iv = small_iv();
  const theory::GdaSetting s{0.01, 0.02, 3};
  const Matrix one = run(iv, s, 4, 5, 1, 30);
  EXPECT_EQ(one, run(iv, s, 4, 5, 2, 30));
  EXPECT_EQ(run(iv, s, 4, 9, 2, 30).leftCols(5), one);
}

TEST(FedsgdaSampler, IdenticalSamplesGiveTheFullBatchChain) {
  // Each client repeats one sample (x, z, y) n times; two instruments so that ψ = (1, z₁, z₂)
  // identifies θ = (intercept, slope) from the three clients together.
  std::vector<theory::LinearIvClient> clients;
  const double xs[] = {1.0, -0.5, 2.0}, z1[] = {0.3, 1.2, -0.7}, z2[] = {-1.0, 0.4, 0.9};
  const double ys[] = {2.1, 0.2, 3.3};
  for (int i = 0; i < 3; ++i) {
    theory::LinearIvClient c{Matrix::Constant(7, 1, xs[i]), Matrix(7, 2),
                             Vector::Constant(7, ys[i])};
    c.z.col(0).setConstant(z1[i]);
    c.z.col(1).setConstant(z2[i]);
    clients.push_back(c);
  }
  Vector tilde(2);
  tilde << 0.1, 1.0;
  const theory::LinearIvGame iv(clients, theory::FeatureMap::affine, theory::FeatureMap::affine,
                                tilde);
  const theory::GdaSetting s{0.05, 0.08, 4};
  Matrix start = Matrix::Zero(5, 3);
  start.col(1).setOnes();
  start(2, 2) = -2;
  Matrix sgda = start, gda = start;
  run_fedsgda({iv, s, 3, 1, 1}, sgda, 25, [](int, const Matrix&) {});
  run_fedgda({iv.game(), s, 1, 1}, gda, 25, [](int, const Matrix&) {});
  // Same arithmetic up to the order of operations: 100 steps of O(1) numbers, ≲ 1e-13.
  EXPECT_LE((sgda - gda).cwiseAbs().maxCoeff(), 1e-12 * (1 + gda.cwiseAbs().maxCoeff()));
}

TEST(FedsgdaSampler, RefusesABadBatchSizeAndReportsDivergence) {
  const theory::LinearIvGame iv = small_iv();
  Matrix state = Matrix::Zero(5, 2);
  EXPECT_THROW(run_fedsgda({iv, {0.01, 0.01, 1}, 0, 1, 1}, state, 1, [](int, const Matrix&) {}),
               InputError);
  // α = 50: the first rounds overshoot by orders of magnitude; double range is left within a few
  // hundred rounds (|growth| ≥ 10 per round).
  const int after =
      run_fedsgda({iv, {50.0, 50.0, 1}, 2, 1, 1}, state, 1000, [](int, const Matrix&) {});
  EXPECT_GT(after, 0);
  EXPECT_LT(after, 1000);
}

}  // namespace
}  // namespace fedverify::estimators
