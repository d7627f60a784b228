// The numerical maximiser of games.gmm-identities: on concave quadratics with known maxima
// (−½(x − x*)ᵀH(x − x*) + v, H built from a chosen spectrum) it reaches x* within
// ‖g‖/λ_min, and it refuses a function that is not concave.
#include "verify/claims/games/concave_max.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "theory/base/rng.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::claims::games {
namespace {

TEST(ConcaveMax, FindsTheMaximumOfAQuadratic) {
  estimators::Stream s(4, estimators::Purpose::test);
  for (int m : {1, 3, 8}) {
    const Eigen::HouseholderQR<Matrix> qr(verify::random_matrix(s, m, m));
    const Matrix q = qr.householderQ();
    Vector spectrum(m);
    for (int i = 0; i < m; ++i) spectrum(i) = std::pow(100.0, static_cast<double>(i) / m);
    const Matrix h = q * spectrum.asDiagonal() * q.transpose();
    const Vector x_star = verify::random_matrix(s, m, 1).col(0);
    const double v = 1.7;
    const auto f = [&](const Vector& x) { return v - 0.5 * (x - x_star).dot(h * (x - x_star)); };
    const NumericalMaximum r = maximise_concave(f, Vector::Zero(m), 1e-11, 50 * m);
    EXPECT_LE(r.gradient_norm, 1e-11) << m;
    // ‖x − x*‖ ≤ ‖∇f‖/λ_min(H) with the true gradient within gradient_noise of the computed one.
    EXPECT_LE((r.argmax - x_star).norm(), (r.gradient_norm + r.gradient_noise) / spectrum(0)) << m;
    EXPECT_NEAR(r.value, v, 1e-12);
    EXPECT_LE(r.iterations, 10 * m);
  }
}

TEST(ConcaveMax, RefusesAConvexFunction) {
  const auto f = [](const Vector& x) { return x.squaredNorm() + x(0); };
  EXPECT_THROW(maximise_concave(f, Vector::Zero(2), 1e-10, 100), std::runtime_error);
}

}  // namespace
}  // namespace fedverify::claims::games
