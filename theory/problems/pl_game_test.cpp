// Tests of the non-convex–PL game (THEORY M8): the operator is the gradient of the objective and
// the Jacobian the operator's derivative (central differences, error O(h²)), and bad input is
// refused naming the field.
#include "theory/problems/pl_game.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

Vector point() { return (Vector(4) << 0.7, -1.3, 0.4, 0.9).finished(); }

TEST(PlGame, OperatorIsTheGradientOfTheObjective) {
  const PlGame game = nonconvex_pl_game(0.5);
  // Central differences of a quartic: error ≤ h²/6 · |f'''| ≈ 1e-10 · 10 at h = 1e-5, plus
  // ε|f|/h ≈ 1e-11: 1e-8 is 100× both.
  constexpr double h = 1e-5;
  for (int i = 0; i < game.num_clients(); ++i) {
    const Vector f = game.client_operator(i, point());
    for (int k = 0; k < game.dim(); ++k) {
      Vector up = point(), down = point();
      up(k) += h;
      down(k) -= h;
      const double derivative = (game.value(i, up) - game.value(i, down)) / (2 * h);
      // F = (∇_θ f, −∇_τ f).
      EXPECT_NEAR(k < game.theta_dim() ? derivative : -derivative, f(k), 1e-8) << i << "," << k;
    }
  }
}

TEST(PlGame, JacobianIsTheDerivativeOfTheOperator) {
  const PlGame game = nonconvex_pl_game(0.5);
  constexpr double h = 1e-5;
  for (int i = 0; i < game.num_clients(); ++i) {
    const Matrix j = game.client_jacobian(i, point());
    for (int k = 0; k < game.dim(); ++k) {
      Vector up = point(), down = point();
      up(k) += h;
      down(k) -= h;
      const Vector column = (game.client_operator(i, up) - game.client_operator(i, down)) / (2 * h);
      EXPECT_LE((column - j.col(k)).cwiseAbs().maxCoeff(), 1e-8) << i << "," << k;
    }
  }
  // The structure [A B; −Bᵀ C] with C = C_iᵀC_i ≽ 0 of rank 1 (m = 1: PL, not strongly concave).
  const Matrix j = game.client_jacobian(0, point());
  EXPECT_LE((j.topRightCorner(2, 2) + j.bottomLeftCorner(2, 2).transpose()).norm(), 1e-15);
  EXPECT_NEAR(j.bottomRightCorner(2, 2).determinant(), 0.0, 1e-15);
}

TEST(PlGame, RefusesAGameThatIsNotStronglyConcaveOnAverage) {
  PlGame game = nonconvex_pl_game(0.5);
  std::vector<PlGameClient> clients = {game.client(0), game.client(0)};
  try {
    PlGame bad(Vector::Ones(2), clients);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not strongly concave in tau"), std::string::npos);
  }
  clients = {game.client(0), game.client(1)};
  clients[1].a(0, 1) += 1;  // not symmetric
  EXPECT_THROW(PlGame(Vector::Ones(2), clients), InputError);
  EXPECT_THROW(PlGame(-Vector::Ones(2), {game.client(0), game.client(1)}), InputError);
  EXPECT_THROW(nonconvex_pl_game(-1), InputError);
}

}  // namespace
}  // namespace fedverify::theory
