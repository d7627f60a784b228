// Formulas: a small expression language over named values (docs/CLAIM_FILES.md, "Formulas"), so
// that a claim states its prediction as one line, "(gamma/N) * ACbar", evaluated per grid row.
// One implementation for claim files (reports/cli/claim_file.cpp) and the Python Claim
// (python/src/runs.cpp); the names of the stationary-law theory are formula_blocks.hpp's.
//
// Grammar (lowest precedence first; `+ - * /` associate to the left, `^` to the right):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | power                 so -2^2 = -(2^2) = -4
//   power   := postfix ('^' unary)?              so 2^3^2 = 2^(3^2) = 512, 2^-1 = 0.5
//   postfix := primary "'"*                      transpose
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
// Numbers: 1, 0.5, .5, 1e-3. Names: ASCII letters, digits and '_' (not first a digit); the aliases
// γ (gamma) and μ (mu), '·' and '×' for '*', 'ᵀ' for "'". A product must be written with '*'.
//
// Values are scalars, d-vectors (columns) and d×d matrices, their kinds checked when the formula
// is parsed: + and − take two values of one kind (no scalar is added to a matrix: write c*I);
// * takes a scalar and anything, a matrix and a vector, or two matrices (two vectors: dot(u, v)
// or outer(u, v)); / divides by a scalar; ^ takes two scalars; ' transposes a matrix (a scalar is
// its own transpose; a vector is refused). Functions: sqrt, exp, log, abs (scalars), trace(M),
// inv(M), dot(u, v), outer(u, v) = uvᵀ, norm2(v) = ‖v‖₂ (of a matrix its largest singular value).
//
// Errors are FormulaError (an InputError) naming the field and the position (in characters, from
// 1) of the offence, with the formula and a caret under it apart:
//   predicted.formula: unknown name 'ACbarr' at 13 (did you mean ACbar?)      what()
//     (gamma/N) * ACbarr                                                       display()
//                 ^
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/linalg.hpp"

namespace fedverify::theory {

// A bad formula. what() is one line (the command line's stderr contract, results.json, the MPI
// transport carry it as any InputError); display() the formula and a caret under the position,
// two lines that the command line prints after it and Python appends to the message.
class FormulaError : public InputError {
 public:
  FormulaError(const std::string& message, std::string display)
      : InputError(message), display_(std::move(display)) {}
  const std::string& display() const { return display_; }

 private:
  std::string display_;
};

enum class FormulaKind { scalar, vector, matrix };

// "a scalar", "a 2-vector", "a 2×2 matrix".
std::string describe(FormulaKind kind, int dim);

// A formula's value: the field of its kind is set.
struct FormulaValue {
  FormulaKind kind = FormulaKind::scalar;
  double scalar = 0;
  Vector vector;
  Matrix matrix;

  static FormulaValue of(double s) { return {FormulaKind::scalar, s, {}, {}}; }
  static FormulaValue of(Vector v) { return {FormulaKind::vector, 0, std::move(v), {}}; }
  static FormulaValue of(Matrix m) { return {FormulaKind::matrix, 0, {}, std::move(m)}; }
  // The value as a matrix: a scalar 1×1, a vector one column.
  Matrix as_matrix() const;
  bool finite() const;
};

// The names a formula may use, with their kinds (the functions are built in).
using FormulaNames = std::map<std::string, FormulaKind, std::less<>>;

struct FormulaNode;  // formula_parse.hpp

class Formula {
 public:
  // Parses `text` and checks its kinds against `names` (dimension `dim`, for messages); throws
  // FormulaError naming `field` as above.
  Formula(std::string text, std::string field, const FormulaNames& names, int dim);

  const std::string& text() const { return text_; }
  const std::string& field() const { return field_; }
  FormulaKind kind() const { return kind_; }
  // The names the formula uses (not its functions), e.g. {"ACbar", "N", "gamma"}.
  const std::set<std::string>& names() const { return names_; }

  // The value, `lookup` giving the value of each name the formula uses (called once per name,
  // with a value of the declared kind and dimension).
  FormulaValue evaluate(const std::function<FormulaValue(const std::string&)>& lookup) const;

  // Throws FormulaError "<field>: <what> at <position><after>" with the formula and a caret.
  [[noreturn]] void fail(int position, const std::string& what,
                         const std::string& after = "") const;

 private:
  std::string text_, field_;
  int dim_;
  std::shared_ptr<const FormulaNode> root_;
  FormulaKind kind_ = FormulaKind::scalar;
  std::set<std::string> names_;
};

}  // namespace fedverify::theory
