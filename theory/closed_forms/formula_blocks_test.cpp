// The named blocks of formulas (theory/closed_forms/formula_blocks.hpp) on a small quadratic: each
// block is the theory function's value it stands for, and identities between blocks that the
// theory states hold (𝐇·𝒜C̄ + 𝒜C̄·𝐇 = C̄, σ*² = tr C̄, FedAvg's (F2) covariance (γ/N)𝒜C̄).
#include "theory/closed_forms/formula_blocks.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

class FormulaBlocksTest : public ::testing::Test {
 protected:
  std::shared_ptr<const QuadraticProblem> problem =
      std::make_shared<const QuadraticProblem>(verify::quadratic(3, 4, 1.0));
  FormulaBlocks blocks{problem};
  RunSetting step{0.05, 3};

  FormulaValue value(const std::string& text, Algorithm algorithm = Algorithm::fedavg) {
    return blocks.evaluate(problem_formula(text, "f", *problem), algorithm, step, "the row");
  }
  Matrix matrix(const std::string& text) { return value(text).as_matrix(); }
};

TEST_F(FormulaBlocksTest, EachIsTheTheoryFunctionsValue) {
  const ExpansionCoefficients k = expansion_coefficients(*problem);
  const ProblemConstants& c = k.constants;
  EXPECT_EQ(value("gamma").scalar, 0.05);
  EXPECT_EQ(value("H").scalar, 3.0);
  EXPECT_EQ(value("N").scalar, 4.0);
  EXPECT_EQ(value("S").scalar, 4.0);  // all clients
  EXPECT_EQ(value("d").scalar, 3.0);
  EXPECT_EQ(value("L").scalar, c.l);
  EXPECT_EQ(value("mu").scalar, c.mu);
  EXPECT_EQ(value("zeta2").scalar, c.zeta2);
  EXPECT_EQ(value("zeta2_second").scalar, c.zeta2_second);
  EXPECT_EQ(value("sigma2_star").scalar, c.sigma_star2);
  EXPECT_EQ(matrix("x_star"), Matrix(c.x_star));
  EXPECT_EQ(matrix("Hess"), c.hessian_at_optimum);
  EXPECT_EQ(matrix("Cbar"), k.noise_at_optimum);
  EXPECT_EQ(matrix("ACbar"), k.a_noise);
  EXPECT_EQ(matrix("AG"), k.a_heterogeneity);
  EXPECT_EQ(matrix("b_h"), Matrix(k.b_heterogeneity));
  EXPECT_EQ(matrix("b_s"), Matrix(k.b_stochastic));
  EXPECT_EQ(matrix("I"), Matrix(Matrix::Identity(3, 3)));
  for (const Algorithm a : {Algorithm::fedavg, Algorithm::scaffold}) {
    const FirstOrderMoments f = first_order(k, a, step);
    const ExactMoments e = exact_moments(*problem, a, step);
    EXPECT_EQ(value("mean_first_order", a).vector, f.mean);
    EXPECT_EQ(value("cov_first_order", a).matrix, f.cov);
    EXPECT_EQ(value("mean_exact", a).vector, e.mean);
    EXPECT_EQ(value("cov_exact", a).matrix, e.cov);
  }
  RunSetting sampled = step;
  sampled.participating = 2;
  EXPECT_EQ(blocks.evaluate(problem_formula("S", "f", *problem), Algorithm("fedopt"), sampled, "r")
                .scalar,
            2.0);
}

// Statement: the blocks satisfy the identities that define them (THEORY (N1), (N4)) and FedAvg's
// first-order covariance is (γ/N)𝒜C̄ (THEORY (F2)), written as a formula.
TEST_F(FormulaBlocksTest, TheoryIdentitiesHoldAsFormulas) {
  EXPECT_LT(matrix("Hess * ACbar + ACbar * Hess - Cbar").cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(value("trace(Cbar) - sigma2_star").scalar, 0.0, 1e-12);
  EXPECT_LT(matrix("(gamma/N) * ACbar - cov_first_order").cwiseAbs().maxCoeff(), 1e-15);
  // FedAvg's first-order mean on a quadratic (b_s = 0): x* + γ(H − 1)b_h (THEORY (F3)).
  EXPECT_LT(matrix("x_star + gamma * (H - 1) * b_h + gamma * b_s - mean_first_order")
                .cwiseAbs()
                .maxCoeff(),
            1e-14);
  // The exact covariance is the first-order one up to O(γ²): a relative gap of a few γ.
  const double gap = matrix("cov_exact - cov_first_order").cwiseAbs().maxCoeff();
  const double size = matrix("cov_exact").cwiseAbs().maxCoeff();
  EXPECT_GT(gap, 0.0);
  EXPECT_LT(gap / size, 10 * step.gamma);
}

TEST_F(FormulaBlocksTest, ShapesAndAvailabilityAreCheckedWhenParsed) {
  EXPECT_THROW(problem_formula("ACbar", "f", *problem, quantity_kind("mean")), InputError);
  try {
    problem_formula("x_star", "predicted.formula", *problem, quantity_kind("cov"));
    FAIL() << "a vector for a covariance";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "predicted.formula: the formula's value is a 3-vector; a covariance needs a 3×3 "
              "matrix");
  }
  const LogisticProblem logistic = verify::small_logistic(2);
  EXPECT_NO_THROW(problem_formula("gamma * ACbar", "f", logistic));
  try {
    problem_formula("mean_exact - x_star", "predicted.formula", logistic);
    FAIL() << "exact moments of a logistic problem";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("predicted.formula: mean_exact needs a quadratic problem"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FormulaBlocksTest, ANonFiniteValueNamesTheRow) {
  try {
    blocks.evaluate(problem_formula("ACbar / (H - 3)", "predicted.formula", *problem),
                    Algorithm::fedavg, step, "γ = 0.05, H = 3");
    FAIL() << "a division by 0";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("predicted.formula: the value is not finite at γ = 0.05, H = 3"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fedverify::theory
