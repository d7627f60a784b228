// The softmax objective of theory/problems/multinomial_problem.hpp: gradient and Hessian against
// central finite differences, the two-class case against the binary logistic loss, the noise
// covariance against the enumeration of every minibatch, accuracy on a hand-made table, and the
// errors on malformed tables.
// Tolerances: the central-difference error of theory/base/testing/round_off.hpp (truncation
// h²/6·|f'''| plus round-off ε|f|/h) with the derivative bounds stated beside each test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/multinomial_problem.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using theory::ClassificationData;
using verify::kEps;
using verify::kFdStep;
using verify::kSafety;

ClassificationData random_table(Stream& s, int n, int p, int classes) {
  ClassificationData d{Matrix(n, p), std::vector<int>(static_cast<std::size_t>(n)), classes};
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < p; ++i) d.features(j, i) = s.normal();
    d.labels[static_cast<std::size_t>(j)] = static_cast<int>(s.below(classes));
  }
  return d;
}

Vector random_vector(Stream& s, int n) {
  Vector v(n);
  for (int i = 0; i < n; ++i) v(i) = s.normal();
  return v;
}

// Along a coordinate direction e_(i,k) only the score z_k of each row moves, by t·a_ji, so the
// m-th derivative of a row's loss is a_ji^m times the m-th derivative of log-sum-exp in z_k, a
// cumulant of a Bernoulli(p_k): |κ₃| ≤ 0.0962, |κ₄| ≤ 1/8, both ≤ 1/4. The gradient entry
// (i', k') along e_(i,k): a_ji'·∂³p_k'/∂z_k³·a_ji³, again a Bernoulli cumulant bound ≤ 1/4.
constexpr double kCumulantBound = 0.25;

TEST(Multinomial, GradientAndHessianMatchFiniteDifferences) {
  Stream s(41, Purpose::test);
  const ClassificationData d = random_table(s, 9, 3, 4);
  const double l2 = 0.1;
  const double h = kFdStep;
  const double amax = d.features.cwiseAbs().maxCoeff();
  for (int trial = 0; trial < 3; ++trial) {
    const Vector x = random_vector(s, 12);
    const Vector g = theory::softmax_gradient(d, x, l2);
    const Matrix hess = theory::softmax_hessian(d, x, l2);
    const double f = theory::softmax_loss(d, x, l2);
    double worst_g = 0, worst_h = 0;
    for (int i = 0; i < 12; ++i) {
      const Vector e = Vector::Unit(12, i);
      const double fd_g =
          (theory::softmax_loss(d, x + h * e, l2) - theory::softmax_loss(d, x - h * e, l2)) /
          (2 * h);
      const double tol_g = h * h / 6 * kCumulantBound * std::pow(amax, 3) +
                           kSafety * kEps * std::max(1.0, std::abs(f)) / h;
      EXPECT_NEAR(g(i), fd_g, tol_g) << "coordinate " << i;
      worst_g = std::max(worst_g, std::abs(g(i) - fd_g) / tol_g);
      const Vector fd_h = (theory::softmax_gradient(d, x + h * e, l2) -
                           theory::softmax_gradient(d, x - h * e, l2)) /
                          (2 * h);
      const double tol_h = h * h / 6 * kCumulantBound * std::pow(amax, 4) +
                           kSafety * kEps * std::max(1.0, g.cwiseAbs().maxCoeff()) * amax / h;
      for (int j = 0; j < 12; ++j) {
        EXPECT_NEAR(hess(j, i), fd_h(j), tol_h) << "(" << j << ", " << i << ")";
        worst_h = std::max(worst_h, std::abs(hess(j, i) - fd_h(j)) / tol_h);
      }
    }
    fmt::print("softmax trial {}: FD error / tolerance: gradient {:.2f}, Hessian {:.2f}\n", trial,
               worst_g, worst_h);
  }
}

// With two classes the softmax model is binary logistic regression in θ = W₁ − W₀: the loss of a
// row is φ(y a·θ), φ(s) = log(1 + e^{−s}), y = ±1 (theory::logistic_loss, THEORY §6).
TEST(Multinomial, TwoClassesIsBinaryLogistic) {
  Stream s(42, Purpose::test);
  const ClassificationData d = random_table(s, 11, 4, 2);
  const Vector x = random_vector(s, 8);
  const Vector theta = x.segment(4, 4) - x.segment(0, 4);
  double expected = 0;
  for (int j = 0; j < d.samples(); ++j) {
    const double y = d.labels[static_cast<std::size_t>(j)] == 1 ? 1.0 : -1.0;
    expected += theory::logistic_loss(y * d.features.row(j).dot(theta)) / d.samples();
  }
  EXPECT_NEAR(theory::softmax_loss(d, x, 0.0), expected, kSafety * d.samples() * kEps);
}

TEST(Multinomial, MinibatchRowsCountRepeatsAndAverageToTheGradient) {
  Stream s(43, Purpose::test);
  const ClassificationData d = random_table(s, 5, 3, 3);
  const Vector x = random_vector(s, 9);
  const double l2 = 0.05;
  // A minibatch that lists row 2 twice is the table with row 2 duplicated.
  const std::vector<int> rows{2, 0, 2};
  const ClassificationData dup = d.subset(rows);
  EXPECT_LE((theory::softmax_gradient(d, x, l2, rows) - theory::softmax_gradient(dup, x, l2))
                .cwiseAbs()
                .maxCoeff(),
            kSafety * kEps * 10);
  // Enumerate every ordered minibatch of B = 2 rows with replacement: their gradients average to
  // the full gradient and their covariance is the noise covariance (1/B) Cov_j(∇ℓ_j).
  const int n = d.samples();
  std::vector<Vector> batch;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const std::vector<int> b{i, j};
      batch.push_back(theory::softmax_gradient(d, x, l2, b));
    }
  }
  Vector mean = Vector::Zero(9);
  for (const auto& g : batch) mean += g / static_cast<double>(batch.size());
  Matrix cov = Matrix::Zero(9, 9);
  for (const auto& g : batch) cov += (g - mean) * (g - mean).transpose() / double(batch.size());
  EXPECT_LE((mean - theory::softmax_gradient(d, x, l2)).norm(), kSafety * n * n * kEps * 10);
  const Matrix c = theory::softmax_noise_covariance(d, x, 2);
  EXPECT_LE((c - cov).norm(), kSafety * n * n * kEps * std::max(1.0, cov.norm()));
}

TEST(Multinomial, AccuracyCountsTheArgmaxAndProblemValidates) {
  // Two features, three classes; W's columns score class 0 by feature 0, class 1 by feature 1,
  // class 2 never; rows: (2, 0) → 0, (0, 2) → 1, (1, 1) ties 0 and 1 → 0 (lowest index).
  ClassificationData d{Matrix(3, 2), {0, 0, 2}, 3};
  d.features << 2, 0, 0, 2, 1, 1;
  Vector x = Vector::Zero(6);
  x(0) = 1;  // W(0, 0)
  x(3) = 1;  // W(1, 1)
  EXPECT_DOUBLE_EQ(theory::softmax_accuracy(d, x), 1.0 / 3.0);

  ClassificationData bad = d;
  bad.labels[1] = 3;
  EXPECT_THROW(theory::validate(bad, "t"), InputError);
  try {
    theory::MultinomialProblem({d, bad}, 0.1, 5);
    ADD_FAILURE() << "accepted a label outside [0, K)";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("clients[1]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(theory::MultinomialProblem({d}, -1.0, 5), InputError);
  EXPECT_THROW(theory::MultinomialProblem({d}, 0.1, 0), InputError);
  theory::MultinomialProblem p({d}, 0.1, 2);
  EXPECT_EQ(p.dim(), 6);
  EXPECT_DOUBLE_EQ(p.value(0, x), theory::softmax_loss(d, x, 0.1));
  EXPECT_EQ(p.hessian(0, x).rows(), 6);
}

}  // namespace
}  // namespace fedverify
