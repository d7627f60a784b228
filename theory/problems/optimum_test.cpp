// The minimiser of theory/problems/optimum.hpp: the closed form on quadratics, a vanishing
// gradient on logistic problems, and the refusal of separable logistic data (no minimiser).
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/linalg.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::kEps;
using verify::kSafety;
using verify::small_logistic;
using verify::small_options;

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

}  // namespace
}  // namespace fedverify
