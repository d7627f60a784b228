// The parser of formulas (formula.hpp): text → tree, by recursive descent over the grammar written
// there. Kinds are checked by Formula (formula.cpp), not here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "theory/closed_forms/formula.hpp"

namespace fedverify::theory {

enum class FormulaOp {
  number,
  name,
  call,
  add,
  subtract,
  multiply,
  divide,
  power,
  negate,
  transpose
};

struct FormulaNode {
  FormulaOp op = FormulaOp::number;
  double number = 0;  // FormulaOp::number
  std::string name;   // FormulaOp::name (a block) and FormulaOp::call (a function)
  std::vector<std::unique_ptr<FormulaNode>> args;  // operands, or a call's arguments
  int position = 1;  // of the number, name or operator, in characters from 1
};

// The built-in functions and their number of arguments.
const std::vector<std::pair<std::string, int>>& formula_functions();

// The tree of `text`; a name must be in `names` (or be a function, when called). Throws
// FormulaError naming `field` and the position (formula_error).
std::unique_ptr<FormulaNode> parse_formula(const std::string& text, const std::string& field,
                                           const FormulaNames& names);

// FormulaError "<field>: <what> at <position><after>", its display the formula and a caret under
// the position (positions in characters from 1; one past the end for "unexpected end").
[[noreturn]] void formula_error(const std::string& field, const std::string& text, int position,
                                const std::string& what, const std::string& after = "");

}  // namespace fedverify::theory
