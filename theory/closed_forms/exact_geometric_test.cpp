// LocalSteps' geometric series in closed form (theory/closed_forms/exact.hpp, geometric_series):
// equal to the term-by-term loop to ~1e-12 relative at moderate H, the loop itself below
// kGeometricLoopSteps (results for small H bit-identical to before), and predict-sized H
// (2³¹ − 1) in O(1), accurate against a 50-digit reference.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "theory/closed_forms/exact.hpp"

namespace fedverify::theory {
namespace {

TEST(GeometricSeries, ClosedFormMatchesTheLoopAtModerateH) {
  for (const double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 0.999999, 1.0, -0.3, -0.9}) {
    for (const int h : {1, 2, 3, 7, 64, 1000, 1023, 1024, 4097, 100000}) {
      const GeometricSeries loop = geometric_series_loop(q, h);
      const GeometricSeries closed = geometric_series_closed_form(q, h);
      const double tol = 1e-12 * std::max(1.0, std::abs(loop.sum));
      EXPECT_NEAR(closed.sum, loop.sum, tol) << "q = " << q << ", H = " << h;
      EXPECT_NEAR(closed.power, loop.power, 1e-12 * std::max(1e-300, std::abs(loop.power)))
          << "q = " << q << ", H = " << h;
    }
  }
}

TEST(GeometricSeries, TheLoopBelowTheThreshold) {
  for (const int h : {1, 5, kGeometricLoopSteps - 1}) {
    const GeometricSeries a = geometric_series(0.987654321, h);
    const GeometricSeries b = geometric_series_loop(0.987654321, h);
    EXPECT_EQ(a.sum, b.sum);  // bit-identical
    EXPECT_EQ(a.power, b.power);
  }
}

TEST(GeometricSeries, ClosedFormAtLargeH) {
  // Σ_{h<H} q^h = (1 − q^H)/(1 − q).
  const int h = std::numeric_limits<int>::max();
  const double q = 1.0 - 1e-9;
  const auto start = std::chrono::steady_clock::now();
  const GeometricSeries g = geometric_series(q, h);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Σ_{h<H} q^h for this double q to 50 digits (Python decimal): (1 − q^H)/(1 − q).
  constexpr double kReference = 883222375.87851003361;
  EXPECT_NEAR(g.sum, kReference, 1e-13 * kReference);
  EXPECT_LT(seconds, 0.01);
}

TEST(LocalSteps, PredictSizedHIsFast) {
  Matrix a(2, 2);
  a << 2.0, 0.3, 0.3, 1.0;
  const auto start = std::chrono::steady_clock::now();
  const LocalSteps ls(a, 1e-9, std::numeric_limits<int>::max());
  const Matrix pa = ls.p_a();
  const Matrix noise = ls.noise_sum(Matrix::Identity(2, 2), ls.beta);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(pa.allFinite());
  EXPECT_TRUE(noise.allFinite());
  EXPECT_LT(seconds, 0.1);
}

}  // namespace
}  // namespace fedverify::theory
