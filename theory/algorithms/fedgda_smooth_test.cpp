// Tests of deterministic FedGDA on smooth games (THEORY M0, M2, M8).
#include "theory/algorithms/fedgda_smooth.hpp"

#include <gtest/gtest.h>

#include "theory/algorithms/fedgda.hpp"
#include "theory/closed_forms/local_minimax.hpp"

namespace fedverify::theory {
namespace {

// With κ = 0 the game is quadratic: client i is the quadratic game (A_i − D_iᵀD_i, D_iᵀC_i,
// C_iᵀC_i, g_i − D_iᵀe_i, C_iᵀe_i); its affine round map (fedgda.hpp) and the smooth round agree
// to round-off, Jacobian included.
TEST(FedgdaSmooth, EqualsTheQuadraticRoundMapWithoutTheQuartic) {
  const PlGame base = nonconvex_pl_game(0.5);
  std::vector<PlGameClient> clients;
  std::vector<QuadraticGameClient> quadratic;
  for (int i = 0; i < base.num_clients(); ++i) {
    PlGameClient c = base.client(i);
    c.a = 3.0 * Matrix::Identity(2, 2) + c.d.transpose() * c.d;  // A_i − D_iᵀD_i = 3I ≻ 0
    clients.push_back(c);
    quadratic.push_back({c.a - c.d.transpose() * c.d, c.d.transpose() * c.c, c.c.transpose() * c.c,
                         c.g - c.d.transpose() * c.e, -c.c.transpose() * c.e, Matrix::Zero(4, 4)});
  }
  const PlGame game(Vector::Zero(2), clients);
  const QuadraticGame q(quadratic);
  const GdaSetting s{0.05, 0.1, 3};
  const AffineRoundMap map = fedgda_round_map(q, s);
  const Vector z = (Vector(4) << 0.3, -0.2, 1.0, 0.5).finished();
  const Matrix m = map.transition();
  const GdaRound round = fedgda_round(game, s, z, true);
  EXPECT_LE((round.jacobian - m).norm(), 1e-14);
  EXPECT_LE((round.z - (m * z + map.gamma * map.r)).norm(), 1e-14);
  // Both fixed points are the quadratic law's mean.
  EXPECT_LE((fedgda_fixed_point(game, s, z) - fedgda_exact(q, s).mean).norm(), 1e-12);
}

// One local step: every stationary point is a fixed point (the round is z − D F̄(z)); with R = 5
// the fixed point moves by O(α), and (M2) is its first-order term (remainder ratio ≈ 4 when α
// halves).
TEST(FedgdaSmooth, FixedPointsAndTheFirstOrderOffset) {
  const PlGame game = nonconvex_pl_game(0.5);
  const auto points = stationary_points(game, 3.0, 13);
  for (const auto& pt : points) {
    const Vector start = pt.z + Vector::Constant(4, 1e-3);
    EXPECT_LE((fedgda_fixed_point(game, {0.01, 0.04, 1}, start) - pt.z).norm(), 1e-11);
    double previous = 0;
    for (double a : {0.004, 0.002}) {
      const GdaSetting s{a, 4 * a, 5};
      const Vector offset = fedgda_fixed_point(game, s, start) - pt.z;
      const Vector first = fedgda_smooth_offset_first_order(game, s, pt.z);
      EXPECT_LE((offset - first).norm(), 0.1 * first.norm());
      const double remainder = (offset - first).norm();
      if (previous > 0) {
        EXPECT_GT(previous / remainder, 3.0);  // O(α²): 4 up to the next order
        EXPECT_LT(previous / remainder, 5.0);
      }
      previous = remainder;
    }
  }
}

}  // namespace
}  // namespace fedverify::theory
