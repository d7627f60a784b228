// LinearIvGame (THEORY M5): the per-client moments against sums written out sample by sample,
// the game's blocks, feature maps, validation messages, and the generator's determinism.
#include "theory/problems/linear_iv.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/linear_iv_generator.hpp"

namespace fedverify::theory {
namespace {

// Two clients, d_x = 1, d_z = 1, φ = ψ = affine, θ̃ = (0.5, 1): small enough to sum by hand.
LinearIvGame tiny() {
  LinearIvClient a{Matrix(3, 1), Matrix(3, 1), Vector(3)};
  a.x << 1, 2, 3;
  a.z << 0.5, -1, 2;
  a.y << 2, 3, 3.5;
  LinearIvClient b{Matrix(2, 1), Matrix(2, 1), Vector(2)};
  b.x << -1, 4;
  b.z << 1, 3;
  b.y << 0, 5;
  Vector tilde(2);
  tilde << 0.5, 1.0;
  return LinearIvGame({a, b}, FeatureMap::affine, FeatureMap::affine, tilde);
}

TEST(LinearIv, MomentsAreTheSampleAverages) {
  const LinearIvGame iv = tiny();
  // Client 0 by hand: ψ_k = (1, z_k), φ_k = (1, x_k), residual r_k = y_k − 0.5 − x_k.
  const double z[] = {0.5, -1, 2}, x[] = {1, 2, 3}, y[] = {2, 3, 3.5};
  Matrix g = Matrix::Zero(2, 2), w = Matrix::Zero(2, 2);
  Vector b = Vector::Zero(2);
  for (int k = 0; k < 3; ++k) {
    const double psi[] = {1, z[k]}, phi[] = {1, x[k]};
    const double r = y[k] - 0.5 - x[k];
    for (int u = 0; u < 2; ++u) {
      b(u) += psi[u] * y[k] / 3;
      for (int v = 0; v < 2; ++v) {
        g(u, v) += psi[u] * phi[v] / 3;
        w(u, v) += psi[u] * psi[v] * r * r / 3;
      }
    }
  }
  constexpr double kRoundOff = 1e-15;  // three-term sums of O(10) numbers
  EXPECT_LE((iv.g(0) - g).cwiseAbs().maxCoeff(), kRoundOff * 10);
  EXPECT_LE((iv.b(0) - b).cwiseAbs().maxCoeff(), kRoundOff * 10);
  EXPECT_LE((iv.w(0) - w).cwiseAbs().maxCoeff(), kRoundOff * 10);
  // The quadratic game: A = 0, B = −Gᵀ, C = ½W, a = 0, c = −b, no noise.
  const QuadraticGameClient& c = iv.game().client(0);
  EXPECT_EQ(c.a, Matrix::Zero(2, 2));
  EXPECT_EQ(c.b, Matrix(-iv.g(0).transpose()));
  EXPECT_EQ(c.c, Matrix(0.5 * iv.w(0)));
  EXPECT_EQ(c.c_linear, Vector(-iv.b(0)));
  EXPECT_EQ(iv.mean_g(), Matrix(0.5 * (iv.g(0) + iv.g(1))));
}

TEST(LinearIv, FeatureMaps) {
  Matrix s(2, 2);
  s << 1, 2, 3, 4;
  EXPECT_EQ(apply_features(FeatureMap::linear, s), s);
  Matrix affine(2, 3), quadratic(2, 5);
  affine << 1, 1, 2, 1, 3, 4;
  quadratic << 1, 1, 2, 1, 4, 1, 3, 4, 9, 16;
  EXPECT_EQ(apply_features(FeatureMap::affine, s), affine);
  EXPECT_EQ(apply_features(FeatureMap::quadratic, s), quadratic);
  EXPECT_EQ(feature_dim(FeatureMap::quadratic, 2), 5);
  EXPECT_THROW(parse_feature_map("cubic", "psi"), InputError);
}

TEST(LinearIv, ValidationNamesTheField) {
  const auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  LinearIvClient bad{Matrix::Ones(3, 1), Matrix::Ones(2, 1), Vector::Ones(3)};
  EXPECT_EQ(message([&] {
              LinearIvGame({bad}, FeatureMap::affine, FeatureMap::affine);
            }).rfind("clients[0].z: 2 rows, but y has 3", 0),
            0u);
  // z constant: ψ = (1, 1) collinear, so G has rank 1 < p = 2.
  LinearIvClient collinear{Matrix(3, 1), Matrix::Ones(3, 1), Vector::Ones(3)};
  collinear.x << 1, 2, 3;
  EXPECT_EQ(message([&] {
              LinearIvGame({collinear}, FeatureMap::affine, FeatureMap::affine);
            }).rfind("instruments:", 0),
            0u);
  // q < p: one instrument feature for two model features.
  LinearIvClient few{Matrix::Ones(3, 2), Matrix::Ones(3, 1), Vector::Ones(3)};
  EXPECT_EQ(message([&] {
              LinearIvGame({few}, FeatureMap::linear, FeatureMap::linear);
            }).rfind("psi:", 0),
            0u);
  EXPECT_EQ(message([&] {
              LinearIvGame({bad}, FeatureMap::affine, FeatureMap::affine, Vector::Ones(3));
            }).rfind("clients[0].z", 0),
            0u);
}

TEST(LinearIvGenerator, SameOptionsSameDataAndTheInstrumentIsValid) {
  LinearIvGeneratorOptions o;
  o.samples = 4000;
  o.seed = 11;
  const LinearIvGame a = generate_linear_iv(o), b = generate_linear_iv(o);
  EXPECT_EQ(a.client(2).y, b.client(2).y);
  o.seed = 12;
  EXPECT_NE(generate_linear_iv(o).client(2).y, a.client(2).y);
  // The structural error e = y − θ₀ᵀ(1, x) is uncorrelated with z (valid instrument) but
  // correlated with x (endogeneity, E[x e] = confounding · Var(e) = 1). Sample correlations of
  // n = 4000 draws have sd ≈ 1/√n = 0.016: |corr(z, e)| < 0.08 (5 sd) and corr(x, e) > 0.1.
  const Vector truth = linear_iv_truth(o);
  const LinearIvClient& c = a.client(0);
  const Vector e = c.y - truth(0) * Vector::Ones(c.y.size()) - truth(1) * c.x.col(0);
  const auto corr = [](const Vector& u, const Vector& v) {
    const Vector cu = u.array() - u.mean(), cv = v.array() - v.mean();
    return cu.dot(cv) / (cu.norm() * cv.norm());
  };
  EXPECT_LT(std::abs(corr(c.z.col(0), e)), 0.08);
  EXPECT_GT(corr(c.x.col(0), e), 0.1);
  o.samples = 1;
  EXPECT_THROW(generate_linear_iv(o), InputError);
}

}  // namespace
}  // namespace fedverify::theory
