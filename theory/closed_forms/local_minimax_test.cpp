// Tests of the local-minimax conditions of non-convex–PL games (THEORY M8).
#include "theory/closed_forms/local_minimax.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fedverify::theory {
namespace {

// τ*(θ) maximises f̄(θ, ·): the τ-part of F̄ vanishes there, and ∇²Φ = S is the derivative of ∇Φ
// (central differences; error O(h²) ≈ 1e-9).
TEST(LocalMinimax, ReducedObjectiveDerivatives) {
  const PlGame game = nonconvex_pl_game(0.5);
  const Vector theta = (Vector(2) << 0.6, -0.8).finished();
  Vector z(4);
  z << theta, best_response(game, theta);
  EXPECT_LE(game.mean_operator(z).tail(2).norm(), 1e-14);
  constexpr double h = 1e-5;
  const Matrix s = reduced_hessian(game, theta);
  for (int k = 0; k < 2; ++k) {
    Vector up = theta, down = theta;
    up(k) += h;
    down(k) -= h;
    const Vector column = (reduced_gradient(game, up) - reduced_gradient(game, down)) / (2 * h);
    EXPECT_LE((column - s.col(k)).cwiseAbs().maxCoeff(), 1e-8);
  }
}

// The game is built as two double wells (Ā = −I, κ = 1) with a τ-coupling that leaves Φ close to
// separable: 3 roots per coordinate, 9 stationary points, of which 4 are minima of Φ.
TEST(LocalMinimax, FindsEveryStationaryPoint) {
  const PlGame game = nonconvex_pl_game(0.5);
  const auto points = stationary_points(game, 3.0, 13);
  ASSERT_EQ(points.size(), 9U);
  int minimax = 0, nash = 0;
  for (const auto& pt : points) {
    EXPECT_LE(pt.residual, 1e-13);
    EXPECT_NEAR(pt.tau_curvature, -0.5, 1e-14);  // −λ_min(mean C_iᵀC_i) = −½ by construction
    minimax += pt.strict_local_minimax() ? 1 : 0;
    nash += pt.local_nash() ? 1 : 0;
  }
  EXPECT_EQ(minimax, 4);
  EXPECT_EQ(nash, 2);  // K = diag(2, ½): in θ₁ the coupling outweighs the well at θ₁ ≈ 0.8
  // A coarser grid finds the same points.
  EXPECT_EQ(stationary_points(game, 3.0, 7).size(), 9U);
}

// A 2 × 2 case by hand: J = [h b; −b q] with h < 0 < h + b²/q (minimax, not Nash). diag(1, ρ)J
// has trace h + ρq and determinant ρ(hq + b²) > 0, so it is stable iff ρ > −h/q.
TEST(LocalMinimax, TimescaleThresholdByHand) {
  const double h = -0.88, b = 1.0, q = 0.5;
  const Matrix j = (Matrix(2, 2) << h, b, -b, q).finished();
  EXPECT_NEAR(timescale_threshold(j, 1, 1e3), -h / q, 1e-8);
  const Matrix nash = (Matrix(2, 2) << 0.3, b, -b, q).finished();
  EXPECT_EQ(timescale_threshold(nash, 1, 1e3), 0.0);
  const Matrix saddle = (Matrix(2, 2) << -3.0, b, -b, q).finished();  // h + b²/q < 0
  EXPECT_TRUE(std::isinf(timescale_threshold(saddle, 1, 1e3)));
  EXPECT_GT(gda_stability_margin(j, 1, 2.0), 0.0);
  EXPECT_LT(gda_stability_margin(j, 1, 1.5), 0.0);
}

}  // namespace
}  // namespace fedverify::theory
