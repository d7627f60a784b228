// Formulas (theory/closed_forms/formula.hpp): parsing and precedence, kinds, every error with its
// position and caret, evaluation against Eigen computed here. The named blocks are tested in
// formula_blocks_test.cpp.
#include "theory/closed_forms/formula.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

using Kind = FormulaKind;

// Names of every kind in d = 2: a = 10, b = 4, c = 3, u = (1, 2), v = (3, −1), M = [[2, 1], [0,
// 3]], P = [[1, −1], [2, 0.5]], I the identity.
const FormulaNames kNames = {{"a", Kind::scalar},     {"b", Kind::scalar},    {"c", Kind::scalar},
                             {"gamma", Kind::scalar}, {"mu", Kind::scalar},   {"u", Kind::vector},
                             {"v", Kind::vector},     {"M", Kind::matrix},    {"P", Kind::matrix},
                             {"I", Kind::matrix},     {"ACbar", Kind::matrix}};

Matrix m_value() { return (Matrix(2, 2) << 2, 1, 0, 3).finished(); }
Matrix p_value() { return (Matrix(2, 2) << 1, -1, 2, 0.5).finished(); }
Vector u_value() { return (Vector(2) << 1, 2).finished(); }
Vector v_value() { return (Vector(2) << 3, -1).finished(); }

FormulaValue lookup(const std::string& name) {
  if (name == "a") return FormulaValue::of(10.0);
  if (name == "b") return FormulaValue::of(4.0);
  if (name == "c") return FormulaValue::of(3.0);
  if (name == "gamma") return FormulaValue::of(0.1);
  if (name == "mu") return FormulaValue::of(0.5);
  if (name == "u") return FormulaValue::of(u_value());
  if (name == "v") return FormulaValue::of(v_value());
  if (name == "M") return FormulaValue::of(m_value());
  if (name == "P") return FormulaValue::of(p_value());
  if (name == "ACbar") return FormulaValue::of(Matrix(2.0 * m_value()));
  return FormulaValue::of(Matrix(Matrix::Identity(2, 2)));
}

FormulaValue eval(const std::string& text) {
  return Formula(text, "predicted.formula", kNames, 2).evaluate(lookup);
}
double scalar(const std::string& text) {
  const FormulaValue v = eval(text);
  EXPECT_EQ(v.kind, Kind::scalar) << text;
  return v.scalar;
}

// The message of the FormulaError that parsing `text` throws, a newline and its display ("" when
// none).
std::string error(const std::string& text) {
  try {
    Formula(text, "predicted.formula", kNames, 2);
  } catch (const FormulaError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    return std::string(e.what()) + "\n" + e.display();
  }
  return "";
}

// Statement: + − * / associate to the left, ^ to the right and binds tighter than unary minus.
TEST(Formula, PrecedenceAndAssociativity) {
  EXPECT_DOUBLE_EQ(scalar("a - b - c"), 3.0);  // (10 − 4) − 3, not 10 − (4 − 3) = 9
  EXPECT_DOUBLE_EQ(scalar("a / b / 2"), 1.25);
  EXPECT_DOUBLE_EQ(scalar("2^3^2"), 512.0);  // 2^(3^2), not (2^3)^2 = 64
  EXPECT_DOUBLE_EQ(scalar("-2^2"), -4.0);
  EXPECT_DOUBLE_EQ(scalar("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(scalar("a + b * c"), 22.0);
  EXPECT_DOUBLE_EQ(scalar("(a + b) * c"), 42.0);
  EXPECT_DOUBLE_EQ(scalar("- -a"), 10.0);
  EXPECT_DOUBLE_EQ(scalar("1e-3 * 2 + .5 + 1.5E2"), 150.502);
  EXPECT_DOUBLE_EQ(scalar("sqrt(b) + exp(0) + log(1) + abs(-c)"), 6.0);
}

TEST(Formula, MatricesAndVectors) {
  const Matrix m = m_value(), p = p_value();
  const Vector u = u_value(), v = v_value();
  EXPECT_TRUE(eval("M * P").matrix.isApprox(m * p));
  EXPECT_TRUE(eval("M' * P").matrix.isApprox(m.transpose() * p));
  EXPECT_TRUE(eval("M * u").vector.isApprox(m * u));
  EXPECT_TRUE(eval("(M + P) / 2 - I").matrix.isApprox((m + p) / 2 - Matrix::Identity(2, 2)));
  EXPECT_TRUE(eval("inv(M) * M").matrix.isApprox(Matrix::Identity(2, 2)));
  EXPECT_TRUE(eval("outer(u, v)").matrix.isApprox(u * v.transpose()));
  EXPECT_DOUBLE_EQ(scalar("dot(u, v)"), 1.0);
  EXPECT_DOUBLE_EQ(scalar("trace(M)"), 5.0);
  EXPECT_DOUBLE_EQ(scalar("norm2(u)"), std::sqrt(5.0));
  EXPECT_NEAR(scalar("norm2(I * 3)"), 3.0, 1e-12);
  EXPECT_TRUE(eval("-u + 2 * v").vector.isApprox(2 * v - u));
  EXPECT_DOUBLE_EQ(scalar("3'"), 3.0);
  // The Unicode aliases read as their ASCII names.
  EXPECT_DOUBLE_EQ(scalar("γ·μ"), 0.05);
  EXPECT_TRUE(eval("Mᵀ × u").vector.isApprox(m.transpose() * u));
}

TEST(Formula, KindsAndNames) {
  const Formula f("(gamma / 2) * ACbar * (1 + gamma * a / 2)", "f", kNames, 2);
  EXPECT_EQ(f.kind(), Kind::matrix);
  EXPECT_EQ(f.names(), (std::set<std::string>{"ACbar", "a", "gamma"}));
  EXPECT_TRUE(f.evaluate(lookup).matrix.isApprox(0.05 * 2.0 * m_value() * 1.5));
  EXPECT_EQ(Formula("dot(u, M * v)", "f", kNames, 2).kind(), Kind::scalar);
  EXPECT_EQ(Formula("M * u", "f", kNames, 2).kind(), Kind::vector);
}

// Statement: every error names the field, the position in characters (from 1) and shows a caret
// under it.
TEST(Formula, ErrorsNameTheFieldAndPosition) {
  EXPECT_EQ(error("(gamma/2) * ACbarr"),
            "predicted.formula: unknown name 'ACbarr' at 13 (did you mean ACbar?)\n"
            "  (gamma/2) * ACbarr\n"
            "              ^");
  EXPECT_EQ(
      error("(u + M)").rfind("predicted.formula: cannot add a 2-vector and a 2×2 matrix at 4\n", 0),
      0U);
  // Positions count characters, not bytes: γ is two bytes.
  EXPECT_EQ(error("γ + u").rfind("predicted.formula: cannot add a scalar and a 2-vector at 3", 0),
            0U);
  const std::pair<const char*, const char*> cases[] = {
      {"M + 1", "cannot add a 2×2 matrix and a scalar at 3 (c*I is c times the identity)"},
      {"u - a", "cannot subtract a scalar from a 2-vector at 3"},
      {"u * v", "cannot multiply a 2-vector by a 2-vector at 3 (write dot(u, v) or outer(u, v))"},
      {"u * M", "cannot multiply a 2-vector by a 2×2 matrix at 3"},
      {"a / M", "cannot divide by a 2×2 matrix at 3"},
      {"M ^ 2", "cannot raise a 2×2 matrix to a power at 3"},
      {"a ^ u", "the exponent must be a scalar, got a 2-vector at 3"},
      {"u'", "cannot transpose a 2-vector at 2"},
      {"trace(u)", "trace takes a matrix, got a 2-vector at 1"},
      {"a * sqrt(M)", "sqrt takes a scalar, got a 2×2 matrix at 5"},
      {"dot(u)", "dot takes 2 arguments, got 1 at 1"},
      {"sqr(a)", "unknown function 'sqr' at 1 (did you mean sqrt?)"},
      {"sqrt", "sqrt is a function, not a value at 1"},
      {"2 a", "expected an operator before 'a' at 3 (write * for a product)"},
      {"2(a)", "expected an operator before '(' at 2 (write * for a product)"},
      {"a(b + c)", "expected an operator before '(' at 2 (write * for a product)"},
      {"(a + b", "unclosed '(' at 1 (missing ')')"},
      {"a * dot(u, v", "unclosed 'dot(' at 5 (missing ')')"},
      {"a + b)", "unmatched ')' at 6"},
      {"a +", "unexpected end of the formula at 4"},
      {"a * * b", "unexpected '*' at 5"},
      {"a # b", "unexpected character '#' at 3"},
      {"a \x01 b", "unexpected character"},
      {"1e+", "malformed number at 1"},
      {"", "empty formula at 1"},
      {"   ", "empty formula at 1"},
  };
  for (const auto& [text, message] : cases) {
    const std::string got = error(text);
    EXPECT_EQ(got.rfind(std::string("predicted.formula: ") + message, 0), 0U)
        << text << " → " << got;
  }
  // The caret sits under the offending character.
  EXPECT_NE(error("a + b)").find("\n  a + b)\n       ^"), std::string::npos);
}

TEST(Formula, NotFiniteValuesAreValuesHere) {
  // The finiteness check is the caller's (FormulaBlocks::evaluate names the row): the value
  // itself says whether it is finite.
  EXPECT_FALSE(eval("a / 0").finite());
  EXPECT_FALSE(eval("log(-a)").finite());
  EXPECT_FALSE(eval("inv(M - M)").finite());
  EXPECT_TRUE(eval("M").finite());
}

}  // namespace
}  // namespace fedverify::theory
