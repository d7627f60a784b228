// Variance of time averages of a linear chain, THEORY (F5a): long_run_covariance and
// time_average_covariance against their definitions.
//
// Statement: for the stationary chain z' = Mz + r + η, Cov(η) = Q,
//   Σ_∞ = (I − M)⁻¹ Q (I − M)⁻ᵀ = (I − M)⁻¹Σ + Σ(I − M)⁻ᵀ − Σ   (Σ = MΣMᵀ + Q), and
//   n Var(z̄_n) = Σ + Σ_{k=1}^{n−1} (1 − k/n)(M^kΣ + ΣM^kᵀ)      (definition).
// Setting: FedAvg's round map (THEORY F5) on a heterogeneous quadratic (verify::quadratic,
// d = 3, N = 4, spectra in [0.5, 2]) at γL = 0.1, H = 2, and a scalar AR(1) with M = ρ,
// Q = 1 − ρ².
// Decision (deterministic): agreement to round-off. The terms are O(‖Σ_∞‖); the brute-force
// sum adds n ≤ 400 matrix products and the closed forms solve with D (κ(D) ≤ 4), so relative
// errors ≲ 400·κ·ε ≈ 10⁻¹²; we allow 10⁻¹⁰ relative (Frobenius).
#include <gtest/gtest.h>

#include <cmath>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

constexpr double kTolerance = 1e-10;

struct Chain {
  AffineRoundMap map;
  Matrix sigma;
};

Chain fedavg_chain() {
  const QuadraticProblem q = verify::quadratic(3, 4, 1.0);
  const RunSetting step{0.1 / q.smoothness(), 2};
  Chain c{fedavg_round_map(q, step), Matrix()};
  c.sigma = stein_solve(c.map.transition(), c.map.gamma * c.map.g);
  return c;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / b.norm(); }

TEST(LongRunCovariance, EqualsTheAutocovarianceSum) {
  const Chain c = fedavg_chain();
  const Matrix m = c.map.transition();
  const Matrix a_inv = (Matrix::Identity(3, 3) - m).inverse();
  const Matrix by_sum = a_inv * c.sigma + c.sigma * a_inv.transpose() - c.sigma;
  EXPECT_LE(relative(long_run_covariance(c.map), by_sum), kTolerance);
}

TEST(TimeAverageCovariance, EqualsTheFiniteSumAndTendsToTheLongRunCovariance) {
  const Chain c = fedavg_chain();
  const Matrix m = c.map.transition();
  for (int n : {1, 2, 7, 60, 400}) {
    Matrix sum = c.sigma;
    Matrix power = Matrix::Identity(3, 3);
    for (int k = 1; k < n; ++k) {
      power = power * m;
      const Matrix lag = power * c.sigma;
      sum += (1.0 - static_cast<double>(k) / n) * (lag + lag.transpose());
    }
    EXPECT_LE(relative(time_average_covariance(c.map, c.sigma, n), sum), kTolerance) << "n " << n;
  }
  // n → ∞: the correction is O(1/n); at n = 10⁸ it is below 10⁻⁵ relative.
  EXPECT_LE(
      relative(time_average_covariance(c.map, c.sigma, 100000000), long_run_covariance(c.map)),
      1e-5);
  EXPECT_THROW(time_average_covariance(c.map, c.sigma, 0), InputError);
}

// Scalar AR(1), x' = ρx + √(1 − ρ²) ε: n Var(x̄_n) = (1+ρ)/(1−ρ) − 2ρ(1 − ρⁿ)/(n(1 − ρ)²)
// (the closed form of estimators/statistics/testing/ar1.hpp, written out here: theory tests do not
// use it).
TEST(TimeAverageCovariance, ScalarAr1ClosedForm) {
  for (double rho : {0.5, 0.9, 0.99}) {
    AffineRoundMap map;
    map.gamma = 1.0;
    map.d = Matrix::Constant(1, 1, 1.0 - rho);
    map.r = Vector::Zero(1);
    map.g = Matrix::Constant(1, 1, 1.0 - rho * rho);
    const Matrix sigma = Matrix::Ones(1, 1);
    for (int n : {10, 900}) {
      const double expected =
          (1 + rho) / (1 - rho) - 2 * rho * (1 - std::pow(rho, n)) / (n * (1 - rho) * (1 - rho));
      EXPECT_NEAR(time_average_covariance(map, sigma, n)(0, 0) / expected, 1.0, kTolerance)
          << "rho " << rho << ", n " << n;
    }
    EXPECT_NEAR(long_run_covariance(map)(0, 0) / ((1 + rho) / (1 - rho)), 1.0, kTolerance);
  }
}

}  // namespace
}  // namespace fedverify::theory
