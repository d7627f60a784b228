// Unit tests of the building blocks of theory/ (and of the generator and the slope fit) against
// INDEPENDENT computations: Kronecker-product solves for small d, central finite differences,
// brute-force enumeration of minibatches, and brute-force iteration of the chains' moments
// (verify/support/brute_force_chain.hpp builds each round step by step from THEORY F0/S0/R0).
//
// Tolerances. Deterministic comparisons use the round-off bound of the computation: a
// backward-stable solve of a system with condition number κ in dimension n is accurate to
// ~ n·ε·κ relative; we allow kSafety times that (growth factors, forming the right-hand side).
// Finite differences use the textbook error of the central difference (truncation h²/6·|f'''|
// plus round-off ε|f|/h), with derivative bounds stated next to each test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/support/brute_force_chain.hpp"
#include "verify/support/kronecker.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using theory::QuadraticProblem;
using theory::StepSetting;

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Multiplier on the n·ε·κ round-off bound of a backward-stable solve: covers the growth factor
// of LU/Schur and the rounding of the inputs (a handful of operations per entry).
constexpr double kSafety = 10.0;

double relative_error(const Matrix& a, const Matrix& reference) {
  return (a - reference).norm() / reference.norm();
}

Matrix random_matrix(Stream& s, int rows, int cols) {
  Matrix m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  return m;
}

// Symmetric positive definite with eigenvalues in [lo, hi].
Matrix random_spd(Stream& s, int d, double lo, double hi) {
  const Eigen::HouseholderQR<Matrix> qr(random_matrix(s, d, d));
  const Matrix q = qr.householderQ();
  Vector lambda(d);
  for (int i = 0; i < d; ++i) lambda(i) = lo + (hi - lo) * s.uniform();
  return symmetric_part(q * lambda.asDiagonal() * q.transpose());
}

// A non-symmetric matrix with spectral radius exactly `rho`.
Matrix random_stable(Stream& s, int d, double rho) {
  const Matrix m = random_matrix(s, d, d);
  return m * (rho / theory::spectral_radius(m));
}

theory::QuadraticGeneratorOptions small_options(std::uint64_t seed) {
  return {.dim = 3,
          .clients = 4,
          .condition = 10.0,
          .optimum_spread = 1.0,
          .hessian_spread = 1.0,
          .noise = 1.0,
          .seed = seed};
}

// ============================================================================================
// Generator: the knobs do what they say.
// ============================================================================================

TEST(Generator, SameSeedGivesTheSameProblemBitForBit) {
  const QuadraticProblem a = theory::generate_quadratic(small_options(7));
  const QuadraticProblem b = theory::generate_quadratic(small_options(7));
  const QuadraticProblem c = theory::generate_quadratic(small_options(8));
  EXPECT_EQ(theory::problem_to_json(a).dump(), theory::problem_to_json(b).dump());
  EXPECT_NE(theory::problem_to_json(a).dump(), theory::problem_to_json(c).dump());
}

TEST(Generator, EigenvaluesWithinTheRequestedConditionNumber) {
  // Every client Hessian has spectrum in [1/κ, 1]; independent ones (spread 1) attain both ends.
  for (double spread : {0.0, 0.3, 1.0}) {
    auto o = small_options(11);
    o.dim = 5;
    o.condition = 50.0;
    o.hessian_spread = spread;
    const QuadraticProblem p = theory::generate_quadratic(o);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector ev = Eigen::SelfAdjointEigenSolver<Matrix>(p.client(c).hessian).eigenvalues();
      // Eigenvalues of Q diag(λ) Qᵀ are λ up to O(d ε) round-off.
      const double tol = kSafety * o.dim * kEps;
      EXPECT_GE(ev.minCoeff(), 1.0 / o.condition - tol) << "client " << c << " spread " << spread;
      EXPECT_LE(ev.maxCoeff(), 1.0 + tol) << "client " << c << " spread " << spread;
      if (spread == 0.0 || spread == 1.0) {
        EXPECT_NEAR(ev.maxCoeff(), 1.0, tol);
        EXPECT_NEAR(ev.minCoeff(), 1.0 / o.condition, tol);
      }
    }
  }
}

TEST(Generator, ZeroHessianSpreadGivesIdenticalHessians) {
  auto o = small_options(3);
  o.hessian_spread = 0.0;
  const QuadraticProblem p = theory::generate_quadratic(o);
  for (int c = 1; c < p.num_clients(); ++c) {
    EXPECT_EQ(p.client(c).hessian, p.client(0).hessian);
  }
  o.hessian_spread = 0.5;
  const QuadraticProblem q = theory::generate_quadratic(o);
  EXPECT_GT((q.client(1).hessian - q.client(0).hessian).norm(), 1e-3);
}

TEST(Generator, ZeroOptimumSpreadGivesIdenticalOptima) {
  auto o = small_options(4);
  o.optimum_spread = 0.0;
  const QuadraticProblem p = theory::generate_quadratic(o);
  for (int c = 1; c < p.num_clients(); ++c) EXPECT_EQ(p.client(c).optimum, p.client(0).optimum);
  o.optimum_spread = 2.0;
  const QuadraticProblem q = theory::generate_quadratic(o);
  EXPECT_GT((q.client(1).optimum - q.client(0).optimum).norm(), 1e-3);
}

TEST(Generator, NoiseKnobScalesTheCovariances) {
  auto o = small_options(5);
  o.noise = 0.0;
  const QuadraticProblem p0 = theory::generate_quadratic(o);
  for (int c = 0; c < p0.num_clients(); ++c) EXPECT_EQ(p0.client(c).noise_cov.norm(), 0.0);
  o.noise = 1.0;
  const QuadraticProblem p1 = theory::generate_quadratic(o);
  o.noise = 3.0;
  const QuadraticProblem p3 = theory::generate_quadratic(o);
  for (int c = 0; c < p1.num_clients(); ++c) {
    // Same stream, scaled: exact up to the rounding of one multiplication per entry.
    EXPECT_LE(relative_error(p3.client(c).noise_cov, 3.0 * p1.client(c).noise_cov), 4 * kEps);
  }
}

TEST(Generator, InvalidOptionsNameTheField) {
  auto expect_field = [](theory::QuadraticGeneratorOptions o, const std::string& field) {
    try {
      (void)theory::generate_quadratic(o);
      ADD_FAILURE() << "no InputError for " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  auto o = small_options(1);
  expect_field(
      [&] {
        auto x = o;
        x.dim = 0;
        return x;
      }(),
      "generator.dim");
  expect_field(
      [&] {
        auto x = o;
        x.clients = 0;
        return x;
      }(),
      "generator.clients");
  expect_field(
      [&] {
        auto x = o;
        x.condition = 0.5;
        return x;
      }(),
      "generator.condition");
  expect_field(
      [&] {
        auto x = o;
        x.optimum_spread = -1;
        return x;
      }(),
      "generator.optimum_spread");
  expect_field(
      [&] {
        auto x = o;
        x.hessian_spread = 1.5;
        return x;
      }(),
      "generator.hessian_spread");
  expect_field(
      [&] {
        auto x = o;
        x.noise = NAN;
        return x;
      }(),
      "generator.noise");
}

// ============================================================================================
// Slope fit (estimators/regression).
// ============================================================================================

TEST(Regression, ExactLineHasZeroStandardError) {
  const std::vector<double> x{1, 2, 3, 4, 5};
  std::vector<double> y;
  for (double v : x) y.push_back(0.5 - 2.0 * v);
  const auto e = estimators::fit_slope(x, y, 0.05);
  // Sums of 5 exactly representable products: only the final divisions round.
  EXPECT_NEAR(e.slope, -2.0, 8 * kEps);
  EXPECT_NEAR(e.intercept, 0.5, 32 * kEps);
  EXPECT_LE(e.std_error, 32 * kEps);
  EXPECT_EQ(e.n, 5);
}

TEST(Regression, KnownDataSet) {
  // Hand computation: x = 1..5, y = (1, 3, 2, 5, 4):
  //   x̄ = 3, ȳ = 3, Sxx = 10, Sxy = 8  ⇒  b = 0.8, a = 0.6;
  //   residuals (−0.4, 0.8, −1.0, 1.2, −0.6), SSR = 3.6, s² = 1.2, se(b) = √(0.12);
  //   t_{0.975, 3} = 3.182446305284263 (tables) ⇒ CI = 0.8 ± 1.102432…
  const auto e = estimators::fit_slope({1, 2, 3, 4, 5}, {1, 3, 2, 5, 4}, 0.05);
  const double se = std::sqrt(0.12);
  const double t = 3.182446305284263;
  EXPECT_NEAR(e.slope, 0.8, 1e-14);
  EXPECT_NEAR(e.intercept, 0.6, 1e-14);
  EXPECT_NEAR(e.std_error, se, 1e-14);
  EXPECT_NEAR(e.lower, 0.8 - t * se, 1e-12);
  EXPECT_NEAR(e.upper, 0.8 + t * se, 1e-12);
}

TEST(Regression, LogLogSlopeOfAPowerLaw) {
  std::vector<double> x, y;
  for (int i = 0; i < 8; ++i) {
    x.push_back(std::pow(10.0, -4 + 0.5 * i));
    y.push_back(3.0 * std::pow(x.back(), 2.0));
  }
  const auto e = estimators::fit_log_log_slope(x, y, 0.01);
  EXPECT_NEAR(e.slope, 2.0, 1e-12);
  EXPECT_THROW(estimators::fit_log_log_slope({1, 2, 0}, {1, 2, 3}, 0.01), InputError);
  EXPECT_THROW(estimators::fit_slope({1, 2}, {1, 2}, 0.01), InputError);
  EXPECT_THROW(estimators::fit_slope({1, 1, 1}, {1, 2, 3}, 0.01), InputError);
}

// ============================================================================================
// Lyapunov solvers vs Kronecker products.
// ============================================================================================

TEST(Lyapunov, OperatorMatchesKroneckerFormula) {
  Stream s(1, Purpose::test);
  for (int d = 1; d <= 4; ++d) {
    const Matrix h = random_spd(s, d, 0.1, 2.0);
    const Matrix c = random_matrix(s, d, d);  // also non-symmetric right-hand sides
    const Matrix reference = verify::kronecker_lyapunov(h, c);
    const Matrix i = Matrix::Identity(d, d);
    const double kappa = verify::condition_number(verify::kron(i, h) + verify::kron(h, i));
    const double err = relative_error(theory::lyapunov_operator(h, c), reference);
    fmt::print("lyapunov_operator d={} rel.err={:.2e} (κ={:.1f})\n", d, err, kappa);
    EXPECT_LE(err, kSafety * d * d * kEps * kappa);
  }
}

TEST(Lyapunov, SteinSolveMatchesKroneckerForNonSymmetricMaps) {
  Stream s(2, Purpose::test);
  for (int d = 1; d <= 4; ++d) {
    for (double rho : {0.5, 0.95}) {
      const Matrix m = random_stable(s, d, rho);
      const Matrix g = random_matrix(s, d, d);
      const Matrix q = g * g.transpose();
      const Matrix reference = verify::kronecker_stein(m, q);
      const double kappa =
          verify::condition_number(Matrix::Identity(d * d, d * d) - verify::kron(m, m));
      const double err = relative_error(theory::stein_solve(m, q), reference);
      fmt::print("stein_solve d={} ρ={} rel.err={:.2e} (κ={:.1f})\n", d, rho, err, kappa);
      EXPECT_LE(err, kSafety * d * d * kEps * kappa);
    }
  }
}

TEST(Lyapunov, DividedFormKeepsAccuracyAtSmallGamma) {
  // X = (I − γD) X (I − γD)ᵀ + γG ⇔ D X + X Dᵀ − γ D X Dᵀ = G. At γ = 1e-6 the plain Stein
  // matrix I − M⊗M = γ(I⊗D + D⊗I) − γ² D⊗D is formed from M = I − γD whose entries carry
  // absolute rounding errors ~ε, i.e. relative errors ~ε/γ in I − M⊗M; the divided form avoids
  // the cancellation and keeps the n·ε·κ accuracy of the divided Kronecker system.
  Stream s(3, Purpose::test);
  const double gamma = 1e-6;
  for (int d = 2; d <= 4; ++d) {
    // Non-symmetric D with spectrum in the right half-plane: SPD part + skew part.
    const Matrix k = random_matrix(s, d, d);
    const Matrix dmat = random_spd(s, d, 0.2, 1.0) + 0.5 * (k - k.transpose());
    const Matrix w = random_matrix(s, d, d);
    const Matrix g = w * w.transpose();
    const Matrix reference = verify::kronecker_divided_lyapunov(dmat, gamma, g);
    const Matrix i = Matrix::Identity(d, d);
    const double kappa = verify::condition_number(verify::kron(i, dmat) + verify::kron(dmat, i) -
                                                  gamma * verify::kron(dmat, dmat));
    const double err = relative_error(theory::discrete_lyapunov_solve(dmat, gamma, g), reference);
    const Matrix m = i - gamma * dmat;
    const double naive_err = relative_error(verify::kronecker_stein(m, gamma * g), reference);
    fmt::print(
        "divided form d={} γ={} rel.err={:.2e} (bound {:.1e}); naive Kronecker Stein "
        "rel.err={:.2e}\n",
        d, gamma, err, kSafety * d * d * kEps * kappa, naive_err);
    EXPECT_LE(err, kSafety * d * d * kEps * kappa);
    EXPECT_LE(err, 1e-9);  // the accuracy the design asks of the divided form
    // The plain form pays ~ε/γ = 2e-10 (times κ); the divided form must be clearly better.
    EXPECT_LE(100 * err, naive_err);
  }
}

TEST(Lyapunov, UnstableMapsThrow) {
  Stream s(4, Purpose::test);
  const Matrix q = Matrix::Identity(3, 3);
  EXPECT_THROW(theory::stein_solve(random_stable(s, 3, 1.1), q), std::domain_error);
  EXPECT_THROW(theory::stein_solve(Matrix::Identity(3, 3), q), std::domain_error);  // ρ = 1
  Matrix d = Matrix::Identity(2, 2);
  d(1, 1) = -0.5;  // an eigenvalue in the left half-plane: no solution of the continuous form
  EXPECT_THROW(theory::discrete_lyapunov_solve(d, 0.0, Matrix::Identity(2, 2)), std::domain_error);
  // γD with an eigenvalue beyond 2: |1 − γλ| > 1.
  EXPECT_THROW(theory::discrete_lyapunov_solve(Matrix::Identity(2, 2), 2.5, Matrix::Identity(2, 2)),
               std::domain_error);
}

// ============================================================================================
// Problem derivatives vs central finite differences.
// ============================================================================================

// A small logistic problem: 2 clients with 5 and 4 samples in d = 3, ℓ2 = 0.1.
theory::LogisticProblem small_logistic(int batch_size, std::uint64_t seed = 21) {
  Stream s(seed, Purpose::test);
  std::vector<theory::LogisticClient> clients;
  for (int n : {5, 4}) {
    theory::LogisticClient c;
    c.features = random_matrix(s, n, 3);
    c.labels = Vector(n);
    for (int j = 0; j < n; ++j) c.labels(j) = s.uniform() < 0.5 ? -1.0 : 1.0;
    clients.push_back(std::move(c));
  }
  return theory::LogisticProblem(std::move(clients), 0.1, batch_size);
}

double max_feature_norm(const theory::LogisticProblem& p, int c) {
  return p.client(c).features.rowwise().norm().maxCoeff();
}

// Central-difference step h = ε^{1/3}: balances truncation h²/6·|f'''| and round-off ε|f|/h.
const double kFdStep = std::cbrt(kEps);
// |φ⁽ᵏ⁾| ≤ 1/4 for k = 2, …, 5 (maxima 1/4, 0.0962, 1/8, 0.0802): so a k-th directional
// derivative of a logistic client objective along a unit vector is ≤ (1/4) max_j ‖a_j‖ᵏ.
constexpr double kLogisticDerivativeBound = 0.25;

TEST(Derivatives, LogisticGradientHessianThirdDerivativeMatchFiniteDifferences) {
  const theory::LogisticProblem p = small_logistic(1);
  Stream s(22, Purpose::test);
  const double h = kFdStep;
  for (int c = 0; c < p.num_clients(); ++c) {
    const Vector x = random_matrix(s, 3, 1).col(0);
    const double amax = max_feature_norm(p, c);
    const Vector grad = p.gradient(c, x);
    const Matrix hess = p.hessian(c, x);
    const Matrix m = random_matrix(s, 3, 3);
    const Vector third = p.third_derivative(c, x, m);
    double worst_g = 0, worst_h = 0, worst_t = 0;
    for (int i = 0; i < 3; ++i) {
      const Vector e = Vector::Unit(3, i);
      // Gradient from the value; the ℓ2 term is quadratic (no truncation error).
      const double fd_g = (p.value(c, x + h * e) - p.value(c, x - h * e)) / (2 * h);
      const double tol_g = h * h / 6 * kLogisticDerivativeBound * std::pow(amax, 3) +
                           kSafety * kEps * std::max(1.0, std::abs(p.value(c, x))) / h;
      EXPECT_NEAR(grad(i), fd_g, tol_g) << "client " << c << " i " << i;
      worst_g = std::max(worst_g, std::abs(grad(i) - fd_g) / tol_g);
      // Hessian column i from the gradient.
      const Vector fd_h = (p.gradient(c, x + h * e) - p.gradient(c, x - h * e)) / (2 * h);
      const double tol_h = h * h / 6 * kLogisticDerivativeBound * std::pow(amax, 4) +
                           kSafety * kEps * std::max(1.0, grad.cwiseAbs().maxCoeff()) * amax / h;
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(hess(j, i), fd_h(j), tol_h) << "client " << c << " (" << j << "," << i << ")";
        worst_h = std::max(worst_h, std::abs(hess(j, i) - fd_h(j)) / tol_h);
      }
      // (∇³f[M])_i = ⟨∂_i ∇²f, M⟩ from the directional difference of the Hessian along e_i.
      const Matrix dh = (p.hessian(c, x + h * e) - p.hessian(c, x - h * e)) / (2 * h);
      const double fd_t = (dh.array() * m.array()).sum();
      const double msum = m.cwiseAbs().sum();
      const double tol_t = (h * h / 6 * kLogisticDerivativeBound * std::pow(amax, 5) +
                            kSafety * kEps * std::max(1.0, hess.cwiseAbs().maxCoeff()) / h) *
                           msum;
      EXPECT_NEAR(third(i), fd_t, tol_t) << "client " << c << " i " << i;
      worst_t = std::max(worst_t, std::abs(third(i) - fd_t) / tol_t);
    }
    fmt::print(
        "logistic client {}: FD error / tolerance: gradient {:.2f}, Hessian {:.2f}, "
        "third derivative {:.2f}\n",
        c, worst_g, worst_h, worst_t);
  }
}

TEST(Derivatives, QuadraticGradientAndHessianMatchFiniteDifferences) {
  // Central differences are exact on polynomials of degree ≤ 2: only round-off remains.
  const QuadraticProblem p = theory::generate_quadratic(small_options(23));
  Stream s(24, Purpose::test);
  const double h = kFdStep;
  for (int c = 0; c < p.num_clients(); ++c) {
    const Vector x = random_matrix(s, 3, 1).col(0);
    const Vector grad = p.gradient(c, x);
    for (int i = 0; i < 3; ++i) {
      const Vector e = Vector::Unit(3, i);
      const double fd_g = (p.value(c, x + h * e) - p.value(c, x - h * e)) / (2 * h);
      EXPECT_NEAR(grad(i), fd_g, kSafety * kEps * std::max(1.0, std::abs(p.value(c, x))) / h);
      const Vector fd_h = (p.gradient(c, x + h * e) - p.gradient(c, x - h * e)) / (2 * h);
      EXPECT_LE((p.hessian(c, x).col(i) - fd_h).cwiseAbs().maxCoeff(),
                kSafety * kEps * std::max(1.0, grad.cwiseAbs().maxCoeff()) / h);
    }
    EXPECT_EQ(p.third_derivative(c, x, Matrix::Ones(3, 3)).norm(), 0.0);  // ∇³f = 0
  }
}

// Per-sample gradient written out from THEORY §6 (not LogisticProblem::sample_gradients):
// ∇ℓ_j(x) = φ'(y_j a_jᵀx) y_j a_j + λx, φ'(s) = −1/(1 + eˢ).
Vector per_sample_gradient(const theory::LogisticProblem& p, int c, int j, const Vector& x) {
  const Vector a = p.client(c).features.row(j).transpose();
  const double y = p.client(c).labels(j);
  return -y / (1.0 + std::exp(y * a.dot(x))) * a + p.l2() * x;
}

TEST(Derivatives, LogisticNoiseCovarianceMatchesMinibatchEnumeration) {
  // Enumerate all n^B equally likely ordered minibatches (with replacement) of a client and
  // take the covariance of the minibatch gradient (1/B) Σ_{j∈batch} ∇ℓ_j.
  Stream s(25, Purpose::test);
  for (int batch : {1, 2}) {
    const theory::LogisticProblem p = small_logistic(batch);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector x = random_matrix(s, 3, 1).col(0);
      const int n = static_cast<int>(p.client(c).labels.size());
      std::vector<Vector> batch_gradients;
      for (int i = 0; i < n; ++i) {
        if (batch == 1) {
          batch_gradients.push_back(per_sample_gradient(p, c, i, x));
        } else {
          for (int j = 0; j < n; ++j) {
            batch_gradients.push_back(
                0.5 * (per_sample_gradient(p, c, i, x) + per_sample_gradient(p, c, j, x)));
          }
        }
      }
      Vector mean = Vector::Zero(3);
      for (const auto& g : batch_gradients) mean += g / static_cast<double>(batch_gradients.size());
      Matrix cov = Matrix::Zero(3, 3);
      for (const auto& g : batch_gradients) {
        cov += (g - mean) * (g - mean).transpose() / static_cast<double>(batch_gradients.size());
      }
      // The mean of the enumeration is the full gradient (unbiasedness of the oracle).
      EXPECT_LE((mean - p.gradient(c, x)).norm(), kSafety * n * kEps * (1 + mean.norm()));
      const double err = relative_error(p.noise_covariance(c, x), cov);
      fmt::print("noise_covariance B={} client {}: rel.err vs enumeration of {} batches = {:.2e}\n",
                 batch, c, batch_gradients.size(), err);
      // Sums of n^B terms: round-off ~ n^B ε relative.
      EXPECT_LE(err, kSafety * static_cast<double>(batch_gradients.size()) * kEps);
    }
  }
}

// ============================================================================================
// Minimiser.
// ============================================================================================

TEST(Minimizer, QuadraticClosedForm) {
  const QuadraticProblem p = theory::generate_quadratic(small_options(31));
  Matrix a = Matrix::Zero(3, 3);
  Vector ab = Vector::Zero(3);
  for (int c = 0; c < p.num_clients(); ++c) {
    a += p.client(c).hessian;
    ab += p.client(c).hessian * p.client(c).optimum;
  }
  const Vector closed = a.ldlt().solve(ab);  // x* = (Σ A_c)⁻¹ Σ A_c b_c
  const Vector xs = theory::minimizer(p);
  const double kappa = verify::condition_number(a);
  const double err = (xs - closed).norm() / closed.norm();
  fmt::print("minimizer (quadratic): rel.err vs closed form = {:.2e} (κ(𝐇) = {:.1f})\n", err,
             kappa);
  EXPECT_LE(err, kSafety * 3 * kEps * kappa);
  EXPECT_LE(theory::average_gradient(p, xs).norm(), kSafety * 3 * kEps * ab.norm());
}

TEST(Minimizer, LogisticGradientVanishes) {
  const theory::LogisticProblem p = small_logistic(1);
  const Vector xs = theory::minimizer(p);
  const double scale = std::max(1.0, theory::average_gradient(p, Vector::Zero(3)).norm());
  const double g = theory::average_gradient(p, xs).norm();
  fmt::print("minimizer (logistic): ‖∇f(x*)‖ = {:.2e}\n", g);
  // The weakest guarantee documented in optimum.hpp (round-off floor of Newton's method).
  EXPECT_LE(g, 1e-10 * scale);
}

// ============================================================================================
// Exact stationary moments vs brute-force iteration of the chain's moments.
// ============================================================================================

// Both sides are accurate to ~ n·ε/(1 − ρ) ≤ 1e-11 in the settings below (1 − ρ ≥ 5e-3, state
// size n ≤ 16); 1e-9 leaves a 100× margin for the non-normality of Scaffold's stacked map. A
// formula error (a wrong power of B_c, a missing 1/N, a wrong sign) changes the result by ≥ γ.
constexpr double kBruteForceTolerance = 1e-9;

struct ChainCase {
  std::uint64_t seed;
  int dim;
  int clients;
  double gamma;
  int local_steps;
};

const std::vector<ChainCase> kChainCases = {{41, 2, 3, 0.05, 1},
                                            {42, 3, 3, 0.1, 2},
                                            {43, 2, 4, 0.05, 5},
                                            {44, 3, 2, 0.2, 3},
                                            {45, 1, 3, 0.1, 4}};

QuadraticProblem chain_problem(const ChainCase& k) {
  auto o = small_options(k.seed);
  o.dim = k.dim;
  o.clients = k.clients;
  return theory::generate_quadratic(o);
}

TEST(ExactMoments, FedAvgMatchesBruteForceIteration) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto exact = theory::fedavg_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_fedavg(p, k.gamma, k.local_steps);
    const double em = relative_error(exact.mean, brute.mean);
    const double ec = relative_error(exact.cov, brute.cov);
    fmt::print(
        "fedavg d={} N={} γ={} H={}: mean rel.err {:.2e}, cov rel.err {:.2e} (2^{} rounds)\n",
        k.dim, k.clients, k.gamma, k.local_steps, em, ec, brute.rounds_log2);
    EXPECT_LE(em, kBruteForceTolerance);
    EXPECT_LE(ec, kBruteForceTolerance);
  }
}

TEST(ExactMoments, ScaffoldMatchesBruteForceIterationOnTheWholeStackedState) {
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const auto exact = theory::scaffold_exact(p, {k.gamma, k.local_steps});
    const auto brute = verify::brute_force_scaffold(p, k.gamma, k.local_steps);
    const double em = relative_error(exact.mean, brute.mean);
    const double ec = relative_error(exact.cov, brute.cov);
    fmt::print(
        "scaffold d={} N={} γ={} H={}: stacked mean rel.err {:.2e}, stacked cov rel.err "
        "{:.2e} (2^{} rounds)\n",
        k.dim, k.clients, k.gamma, k.local_steps, em, ec, brute.rounds_log2);
    EXPECT_LE(em, kBruteForceTolerance);
    EXPECT_LE(ec, kBruteForceTolerance);
    // Fixed point of the control variates: ξ_c* = −∇f_c(x*).
    const Vector xs = theory::minimizer(p);
    for (int c = 0; c < p.num_clients(); ++c) {
      const Vector target = -p.gradient(c, xs);
      EXPECT_LE((exact.xi_mean(c) - target).norm(), kBruteForceTolerance * (1 + target.norm()))
          << "client " << c;
    }
  }
}

TEST(ExactMoments, FedRRMatchesBruteForceIterationForBothNoiseCouplings) {
  for (const auto& k : kChainCases) {
    if (2 * k.gamma * k.local_steps > 1.0) continue;  // the 2γ run must have a stationary law
    const QuadraticProblem p = chain_problem(k);
    const int d = k.dim;
    Matrix l(d, 2 * d);  // χ = 2 x^{(γ)} − x^{(2γ)}
    l << 2.0 * Matrix::Identity(d, d), -Matrix::Identity(d, d);
    for (bool shared : {false, true}) {
      const auto coupling =
          shared ? theory::NoiseCoupling::shared : theory::NoiseCoupling::independent;
      const auto exact = theory::fedrr_exact(p, {k.gamma, k.local_steps}, coupling);
      const auto pair = verify::brute_force_fedrr_pair(p, k.gamma, k.local_steps, shared);
      const double em = relative_error(exact.mean, l * pair.mean);
      const double ec = relative_error(exact.cov, l * pair.cov * l.transpose());
      fmt::print("fedrr ({}) d={} N={} γ={} H={}: mean rel.err {:.2e}, cov rel.err {:.2e}\n",
                 shared ? "shared" : "independent", k.dim, k.clients, k.gamma, k.local_steps, em,
                 ec);
      EXPECT_LE(em, kBruteForceTolerance);
      EXPECT_LE(ec, kBruteForceTolerance);
    }
  }
}

TEST(ExactMoments, FixedPointFormulaEqualsExactStationaryMean) {
  // THEORY (F4) vs (F5). (F4) forms I − B_c^H, whose smallest eigenvalue is
  // 1 − (1 − γμ)^H ≈ γHμ, from B_c^H with absolute rounding ~Hε: relative error Hε/(1−(1−γμ)^H).
  for (const auto& k : kChainCases) {
    const QuadraticProblem p = chain_problem(k);
    const StepSetting s{k.gamma, k.local_steps};
    const Vector fp = theory::fedavg_fixed_point(p, s);
    const Vector m = theory::fedavg_exact(p, s).mean;
    const double mu = p.strong_convexity();
    const double tol = kSafety * k.dim * k.local_steps * kEps /
                       (1.0 - std::pow(1.0 - k.gamma * mu, k.local_steps));
    const double err = relative_error(fp, m);
    fmt::print("fixed point (F4) vs exact mean (F5), H={} γ={}: rel.err {:.2e} (tol {:.1e})\n",
               k.local_steps, k.gamma, err, tol);
    EXPECT_LE(err, tol);
  }
}

TEST(ExactMoments, SingleClientSingleStepCovarianceIsSgdKroneckerFormula) {
  // THEORY (G1): vec Σ_γ = γ (𝐇⊗I + I⊗𝐇 − γ𝐇⊗𝐇)⁻¹ vec C for N = 1, H = 1.
  for (double gamma : {1e-3, 0.1, 1.0}) {
    auto o = small_options(51);
    o.clients = 1;
    const QuadraticProblem p = theory::generate_quadratic(o);
    const Matrix& h = p.client(0).hessian;
    const Matrix reference = verify::kronecker_sgd_covariance(h, p.client(0).noise_cov, gamma);
    const Matrix i = Matrix::Identity(3, 3);
    const double kappa = verify::condition_number(verify::kron(h, i) + verify::kron(i, h) -
                                                  gamma * verify::kron(h, h));
    for (auto algo : {theory::Algorithm::fedavg, theory::Algorithm::sgd}) {
      const auto exact = theory::exact_moments(p, algo, {gamma, 1});
      const double err = relative_error(exact.cov, reference);
      fmt::print("(G1) {} γ={}: cov rel.err vs Kronecker formula {:.2e}\n", theory::to_string(algo),
                 gamma, err);
      EXPECT_LE(err, kSafety * 9 * kEps * kappa);
    }
  }
}

// ============================================================================================
// Problem files (JSON).
// ============================================================================================

TEST(ProblemJson, RoundTripIsExact) {
  const QuadraticProblem q = theory::generate_quadratic(small_options(61));
  const std::string text = theory::problem_to_json(q).dump();
  const auto back = theory::parse_problem(nlohmann::json::parse(text), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*back).dump(), text);
  const auto& qb = dynamic_cast<const QuadraticProblem&>(*back);
  for (int c = 0; c < q.num_clients(); ++c) {
    EXPECT_EQ(qb.client(c).hessian, q.client(c).hessian);
    EXPECT_EQ(qb.client(c).optimum, q.client(c).optimum);
    EXPECT_EQ(qb.client(c).noise_cov, q.client(c).noise_cov);
  }
  const theory::LogisticProblem l = small_logistic(2);
  const std::string ltext = theory::problem_to_json(l).dump();
  const auto lback = theory::parse_problem(nlohmann::json::parse(ltext), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*lback).dump(), ltext);
}

void expect_input_error_naming(const std::string& json_text, const std::string& field) {
  try {
    (void)theory::parse_problem(nlohmann::json::parse(json_text), "bad.json");
    ADD_FAILURE() << "no InputError for " << json_text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
        << "message \"" << e.what() << "\" does not name " << field;
  }
}

TEST(ProblemJson, BadInputsNameTheField) {
  const std::string ok_noise = R"("noise_cov": [[1, 0], [0, 1]])";
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0.5], [0, 1]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // not symmetric
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0, -1]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // not positive definite
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0, 1]], "optimum": [0, 0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // shape does not match the optimum's length
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian[1]");  // ragged rows
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "noise_cov": [[1]]}]})",
      "clients[0].optimum");  // missing field
  expect_input_error_naming(R"({"clients": []})", "kind");
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[-1]]}]})",
      "clients[0].noise_cov");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1, 0], [0, 1]], "labels": [1, 0]}]})",
      "clients[0].labels[1]");  // label not ±1
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "clients": [{"features": [[1, 0]], "labels": [1]}]})",
      "batch_size");
}

// The strict JSON reader of problem files (DESIGN.md, "Problem files"). Statement: on valid text
// it builds the same document as nlohmann::json::parse; a number that overflows double and a key
// given twice in one object are InputErrors naming the source and the byte or the key's path.
// Decision: exact document equality; the messages contain the expected names.
TEST(ProblemJson, StrictReaderMatchesNlohmannAndNamesOverflowAndDuplicateKeys) {
  const std::string text =
      R"({"a": [1, -2, 3.5, 18446744073709551615, true, null, "s", {"b": [[]], "c": {}}], "d": {}})";
  EXPECT_EQ(theory::parse_json_text(text, "doc"), nlohmann::json::parse(text));
  const auto expect_message = [](const std::string& bad, const std::string& expected) {
    try {
      (void)theory::parse_json_text(bad, "bad.json");
      ADD_FAILURE() << "no InputError for " << bad;
    } catch (const InputError& e) {
      fmt::print("{} -> {}\n", bad, e.what());
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  expect_message(R"({"l2": 1e999})", "bad.json: number out of range at byte");
  expect_message(R"({"l2": -1e999})", "-1e999");
  expect_message(R"({"kind": "a", "kind": "b"})", "bad.json: kind: duplicate key");
  expect_message(R"({"clients": [{}, {"optimum": [0], "optimum": [1]}]})",
                 "bad.json: clients[1].optimum: duplicate key");
  expect_message(R"({"a": [1, 2)", "bad.json: malformed JSON (byte");
  // The same key in different objects is not a duplicate.
  EXPECT_NO_THROW((void)theory::parse_json_text(R"({"x": {"k": 1}, "y": {"k": 2}})", "ok"));
}

// Unknown fields (DESIGN.md, "Problem files"). Statement: a key the format does not define, at
// top level or in a client, is an InputError naming it with the expected keys; everything the
// writer emits (problem_to_json) and the "generator" record of the committed examples is
// accepted. Decision: messages contain the names; the round trip reproduces the JSON text.
TEST(ProblemJson, UnknownFieldsAreRejectedAndTheWritersOutputIsAccepted) {
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "hesian": [[1]], "optimum": [0], "noise_cov": [[1]]}]})",
      "bad.json: clients[0].hesian: unknown field (expected hessian, optimum, noise_cov)");
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[1]]}], "extra": 1})",
      "bad.json: extra: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "lambda": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "labels": [1]}]})",
      "bad.json: lambda: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "labels": [1], "hessian": [[1]]}]})",
      "bad.json: clients[0].hessian: unknown field (expected features, labels)");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "label": [1]}]})",
      "bad.json: clients[0].label: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 4294967297, "clients": [{"features": [[1]], "labels": [1]}]})",
      "bad.json: batch_size: 4294967297 is out of range");
  expect_input_error_naming(
      R"({"kind": "quadratic", "generator": 7, "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[1]]}]})",
      "bad.json: generator: expected an object");
  const theory::LogisticProblem l = small_logistic(2);
  const std::string ltext = theory::problem_to_json(l).dump();
  const auto lback =
      theory::parse_problem(theory::parse_json_text(ltext, "roundtrip"), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*lback).dump(), ltext);
  nlohmann::json with_generator = theory::problem_to_json(l);
  with_generator["generator"] = {{"dim", 2}, {"seed", 1}};
  EXPECT_NO_THROW((void)theory::parse_problem(with_generator, "with generator"));
}

// Guard of theory::minimizer (THEORY (N3) needs x* with ∇²f(x*) ≻ 0). Setting: logistic, l2 = 0,
// d = 1, features 1 and 2, both labels +1 — separable, f(x) → 0 as x → ∞, no minimiser, yet
// ∇f(x) ≈ e^{−x} reaches Newton's gradient tolerance near x ≈ 32. Prediction: InputError
// "no unique minimiser". Control: a quadratic of condition number 1e9 (∇²f constant, so the
// curvature cannot collapse) is still solved; its x* solves a diagonal system, exact up to
// ε·κ ≈ 2e-7 relative round-off in the Newton step, hence the 1e-6 tolerance.
TEST(Minimizer, RejectsSeparableLogisticDataButNotAnIllConditionedQuadratic) {
  theory::LogisticClient client;
  client.features = Matrix{{1.0}, {2.0}};
  client.labels = Vector{{1.0, 1.0}};
  const theory::LogisticProblem separable({client}, /*l2=*/0.0, /*batch_size=*/1);
  try {
    const Vector x = theory::minimizer(separable);
    ADD_FAILURE() << "no InputError; Newton returned x = " << x.transpose();
  } catch (const InputError& e) {
    fmt::print("separable, l2 = 0: {}\n", e.what());
    EXPECT_NE(std::string(e.what()).find("no unique minimiser"), std::string::npos) << e.what();
  }
  constexpr double kCondition = 1e9;
  theory::QuadraticClient q;
  q.hessian = Matrix{{1.0, 0.0}, {0.0, 1.0 / kCondition}};
  q.optimum = Vector{{0.5, -2.0}};
  q.noise_cov = Matrix::Identity(2, 2);
  const QuadraticProblem ill({q});
  const Vector x = theory::minimizer(ill);
  fmt::print("condition 1e9: x* = ({}, {}), expected (0.5, -2)\n", x(0), x(1));
  EXPECT_LE((x - q.optimum).norm(), 1e-6 * q.optimum.norm());
}

// ============================================================================================
// The algorithm registry: names, descriptors, and dispatch of the closed forms by name.
// ============================================================================================

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto* d : theory::registered_algorithms()) names.emplace_back(d->name());
  return names;
}

TEST(AlgorithmRegistry, BuiltInsAreListedInTheirDeclaredOrder) {
  const std::vector<std::string> expected = {"sgd",  "fedavg", "scaffold", "fedrr",
                                             "l2gd", "l2sgd",  "l2sgd+"};
  std::vector<std::string> names = registered_names();
  ASSERT_GE(names.size(), expected.size());  // a test may have registered one more, after them
  names.resize(expected.size());
  EXPECT_EQ(names, expected);
}

TEST(AlgorithmRegistry, UnknownNameNamesTheFieldAndListsEveryAlgorithm) {
  try {
    theory::parse_algorithm("fedsgd", "settings.algo");
    FAIL() << "fedsgd was accepted";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("settings.algo: unknown algorithm \"fedsgd\"", 0), 0u) << message;
    for (const std::string& name : registered_names()) {
      EXPECT_NE(message.find(name), std::string::npos) << name << " missing from: " << message;
    }
  }
  EXPECT_THROW(theory::validate(theory::Algorithm{"fedsgd"}, {0.1, 1}), InputError);
}

TEST(AlgorithmRegistry, HandlesCompareByNameAndKeepTheEnumerationOrdinals) {
  using theory::Algorithm;
  EXPECT_EQ(theory::parse_algorithm("scaffold"), Algorithm::scaffold);
  EXPECT_NE(theory::parse_algorithm("fedavg"), Algorithm::sgd);
  EXPECT_EQ(theory::to_string(Algorithm::fedrr), "fedrr");
  // Seeds in the claims are derived from the former enumeration values.
  EXPECT_EQ(static_cast<int>(Algorithm::sgd), 0);
  EXPECT_EQ(static_cast<int>(Algorithm::fedavg), 1);
  EXPECT_EQ(static_cast<int>(Algorithm::scaffold), 2);
  EXPECT_EQ(static_cast<std::uint64_t>(Algorithm::fedrr), 3u);
  EXPECT_GE(theory::parse_algorithm("l2gd").ordinal(), 4);
}

TEST(AlgorithmRegistry, ClosedFormsAreRegisteredExactlyWhereTheDescriptorSaysSo) {
  for (const auto* d : theory::registered_algorithms()) {
    const bool has_theory = theory::find_algorithm_theory(d->algorithm) != nullptr;
    if (d->family == theory::AlgorithmFamily::chain) {
      EXPECT_EQ(has_theory, d->has_closed_forms) << d->name();
    } else {
      EXPECT_FALSE(has_theory) << d->name() << ": personalised algorithms predict their own way";
    }
    EXPECT_FALSE(d->summary.empty()) << d->name();
    EXPECT_FALSE(d->theory_labels.empty()) << d->name();
  }
  EXPECT_TRUE(theory::describe(theory::parse_algorithm("l2gd")).has_closed_forms);
  EXPECT_FALSE(theory::describe(theory::parse_algorithm("l2sgd+")).has_closed_forms);
  EXPECT_TRUE(theory::describe(theory::Algorithm::fedrr).reads(theory::AlgorithmOption::noise));
  EXPECT_FALSE(theory::describe(theory::Algorithm::fedavg).reads(theory::AlgorithmOption::noise));
}

TEST(AlgorithmRegistry, SgdRequiresOneLocalStep) {
  try {
    theory::validate(theory::Algorithm::sgd, {0.1, 2});
    FAIL() << "sgd accepted H = 2";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--local-steps:", 0), 0u) << e.what();
  }
  EXPECT_NO_THROW(theory::validate(theory::Algorithm::fedavg, {0.1, 2}));
  EXPECT_THROW(theory::validate(theory::Algorithm::fedavg, {0.0, 2}), InputError);
}

// first_order() and exact_moments() reach the per-algorithm formulas through the registry: the
// numbers are the same bits as a direct call.
TEST(AlgorithmRegistry, DispatchByNameEqualsTheDirectFormulasBitForBit) {
  const ChainCase c = kChainCases[1];
  const QuadraticProblem p = chain_problem(c);
  const StepSetting s{c.gamma, c.local_steps};
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  using theory::Algorithm;
  const auto same = [](const theory::FirstOrderMoments& a, const theory::FirstOrderMoments& b) {
    return a.mean == b.mean && a.cov == b.cov && a.bias_heterogeneity == b.bias_heterogeneity &&
           a.bias_stochastic == b.bias_stochastic && a.x_star == b.x_star;
  };
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::fedavg, s), theory::fedavg_first_order(k, s)));
  EXPECT_TRUE(
      same(theory::first_order(k, Algorithm::scaffold, s), theory::scaffold_first_order(k, s)));
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::fedrr, s), theory::fedrr_first_order(k, s)));
  EXPECT_TRUE(same(theory::first_order(k, Algorithm::sgd, {c.gamma, 1}),
                   theory::fedavg_first_order(k, {c.gamma, 1})));

  const theory::ExactMoments fedavg = theory::exact_moments(p, Algorithm::fedavg, s);
  EXPECT_EQ(fedavg.mean, theory::fedavg_exact(p, s).mean);
  EXPECT_EQ(fedavg.cov, theory::fedavg_exact(p, s).cov);
  const theory::ExactMoments fedrr = theory::exact_moments(p, Algorithm::fedrr, s);
  EXPECT_EQ(fedrr.cov, theory::fedrr_exact(p, s).cov);
  const theory::ScaffoldExactMoments stacked = theory::scaffold_exact(p, s);
  const theory::ExactMoments scaffold = theory::exact_moments(p, Algorithm::scaffold, s);
  EXPECT_EQ(scaffold.mean, stacked.x_mean());
  EXPECT_EQ(scaffold.cov, stacked.x_cov());
  const auto state = theory::algorithm_theory(Algorithm::scaffold).exact_state(p, s);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->mean, stacked.mean);
  EXPECT_EQ(state->cov, stacked.cov);
  EXPECT_FALSE(theory::algorithm_theory(Algorithm::fedavg).exact_state(p, s).has_value());
}

TEST(AlgorithmRegistry, AlgorithmsWithoutClosedFormsAreRefusedNamingAlgo) {
  const QuadraticProblem p = chain_problem(kChainCases[0]);
  try {
    theory::exact_moments(p, theory::parse_algorithm("l2sgd"), {0.1, 1});
    FAIL() << "exact moments for l2sgd";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--algo:", 0), 0u) << e.what();
  }
}

// A new algorithm is one registration: it is then parsed, validated, listed and dispatched by
// name with no other change. The toy "fedavg-twice-gamma" is FedAvg at step 2γ.
class FedavgTwiceGamma final : public theory::AlgorithmTheory {
 public:
  theory::FirstOrderMoments first_order(const theory::ExpansionCoefficients& k,
                                        const StepSetting& s) const override {
    return theory::fedavg_first_order(k, {2 * s.gamma, s.local_steps});
  }
  theory::ExactMoments exact(const QuadraticProblem& q, const StepSetting& s) const override {
    return theory::fedavg_exact(q, {2 * s.gamma, s.local_steps});
  }
};

TEST(AlgorithmRegistry, ANewAlgorithmIsReachedByItsNameAlone) {
  constexpr theory::Algorithm kToy{"fedavg-twice-gamma"};
  constexpr int kAfterEveryBuiltIn = 1000;
  static const bool registered =
      theory::register_algorithm({.algorithm = kToy,
                                  .order = kAfterEveryBuiltIn,
                                  .summary = "FedAvg at step 2 gamma (a test of the registry)",
                                  .theory_labels = {"F2", "F3", "F5"},
                                  .family = theory::AlgorithmFamily::chain,
                                  .options = {theory::AlgorithmOption::local_steps}},
                                 std::make_unique<FedavgTwiceGamma>());
  ASSERT_TRUE(registered);
  EXPECT_EQ(registered_names().back(), "fedavg-twice-gamma");
  EXPECT_EQ(theory::parse_algorithm("fedavg-twice-gamma"), kToy);
  EXPECT_TRUE(theory::describe(kToy).has_closed_forms);  // set by the registration
  EXPECT_THROW(theory::register_algorithm({.algorithm = kToy}), std::logic_error);

  const ChainCase c = kChainCases[1];
  const QuadraticProblem p = chain_problem(c);
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  EXPECT_EQ(theory::first_order(k, kToy, {c.gamma, c.local_steps}).cov,
            theory::first_order(k, theory::Algorithm::fedavg, {2 * c.gamma, c.local_steps}).cov);
  EXPECT_EQ(theory::exact_moments(p, kToy, {c.gamma, c.local_steps}).mean,
            theory::fedavg_exact(p, {2 * c.gamma, c.local_steps}).mean);
}

}  // namespace
}  // namespace fedverify
