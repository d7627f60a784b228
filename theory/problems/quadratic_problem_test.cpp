// The quadratic client objectives of theory/problems/quadratic_problem.hpp: gradient and Hessian
// against central finite differences (exact on quadratics up to round-off), ∇³f = 0.
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using estimators::Purpose;
using estimators::Stream;
using theory::QuadraticProblem;
using verify::kEps;
using verify::kFdStep;
using verify::kSafety;
using verify::random_matrix;
using verify::small_options;

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

}  // namespace
}  // namespace fedverify
