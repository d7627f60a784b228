// The quadratic generator (theory/problems/generators.hpp): the knobs do what they say, the same
// seed gives the same problem bit for bit, invalid options name the field.
// Tolerances: the round-off bounds of theory/base/testing/round_off.hpp (kSafety · n·ε·κ for a
// backward-stable solve; the central-difference error for finite differences).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::kEps;
using verify::kSafety;
using verify::relative_error;
using verify::small_options;

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

}  // namespace
}  // namespace fedverify
