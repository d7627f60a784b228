// The logistic client objectives of theory/problems/logistic_problem.hpp: gradient, Hessian and
// third derivative against central finite differences, and the minibatch noise covariance
// against the enumeration of every minibatch.
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using verify::kEps;
using verify::kFdStep;
using verify::kSafety;
using verify::random_matrix;
using verify::relative_error;
using verify::small_logistic;

double max_feature_norm(const theory::LogisticProblem& p, int c) {
  return p.client(c).features.rowwise().norm().maxCoeff();
}

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

}  // namespace
}  // namespace fedverify
