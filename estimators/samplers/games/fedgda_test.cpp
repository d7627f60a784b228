// The FedGDA sampler: chains are independent of K and of the thread count (bit for bit), and a
// noiseless chain follows the affine round map exactly (its limit is the exact fixed point).
#include "estimators/samplers/games/fedgda.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

Matrix run(const theory::QuadraticGame& g, const theory::GdaSetting& s, int chains, int threads,
           int rounds) {
  Matrix state = verify::spread_start(g.dim(), chains);
  run_fedgda({g, s, 17, threads}, state, rounds, [](int, const Matrix&) {});
  return state;
}

TEST(FedgdaSampler, ChainsDependOnNeitherKNorThreads) {
  const theory::QuadraticGame g = verify::small_game();
  const theory::GdaSetting s{0.1, 0.05, 3};
  const Matrix one = run(g, s, 6, 1, 40);
  EXPECT_EQ(one, run(g, s, 6, 2, 40));
  // The first 6 chains of 9 (spread_start depends on K, so start them alike).
  Matrix nine = Matrix::Zero(g.dim(), 9);
  nine.leftCols(6) = verify::spread_start(g.dim(), 6);
  run_fedgda({g, s, 17, 2}, nine, 40, [](int, const Matrix&) {});
  EXPECT_EQ(nine.leftCols(6), one);
}

TEST(FedgdaSampler, NoiselessChainsFollowTheRoundMap) {
  // The fixed point z_F of the noiseless round, from its definition: z = (1/N)Σ_i (B_i^R z + c_i)
  // with c_i the end point of R steps from 0 (so the round is z ↦ Mz + r, r = (1/N)Σ c_i).
  std::vector<theory::QuadraticGameClient> clients;
  for (int i = 0; i < 3; ++i) {
    auto c = verify::game_client(i);
    c.noise_cov.setZero();
    clients.push_back(c);
  }
  const theory::QuadraticGame g(clients);
  const theory::GdaSetting s{0.1, 0.05, 3};
  const Matrix zero = Matrix::Zero(g.dim(), 1);
  Matrix image = zero;  // r: one round from 0
  run_fedgda({g, s, 1, 1}, image, 1, [](int, const Matrix&) {});
  Matrix m(g.dim(), g.dim());  // M: columns are one round from e_j, minus r
  for (int j = 0; j < g.dim(); ++j) {
    Matrix e = Matrix::Zero(g.dim(), 1);
    e(j, 0) = 1.0;
    run_fedgda({g, s, 1, 1}, e, 1, [](int, const Matrix&) {});
    m.col(j) = e.col(0) - image.col(0);
  }
  const Vector fixed = (Matrix::Identity(g.dim(), g.dim()) - m).partialPivLu().solve(image.col(0));
  const Matrix limit = run(g, s, 2, 1, 2000);
  for (int k = 0; k < 2; ++k) EXPECT_LE((limit.col(k) - fixed).norm(), 1e-12 * fixed.norm());
}

TEST(FedgdaSampler, DivergenceIsReportedNamingTheStep) {
  const theory::QuadraticGame g = verify::small_game();
  Matrix state = Matrix::Zero(g.dim(), 2);
  EXPECT_THROW(run_fedgda({g, {5.0, 5.0, 5}, 1, 1}, state, 2000, [](int, const Matrix&) {}),
               InputError);
}

}  // namespace
}  // namespace fedverify::estimators
