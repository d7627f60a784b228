// The named building blocks of formulas (formula.hpp; docs/CLAIM_FILES.md, "Formulas"): the
// setting (γ, H, N, S, d), the problem's constants and expansion coefficients (x*, 𝐇, C̄, 𝒜C̄, 𝒜G,
// b_h, b_s, L, μ, ζ², σ*²) and the stationary moments fedverify predicts (first order, exact),
// each taken from the theory function that defines it (never re-derived here), computed only when
// a formula uses it.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/formula.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

struct FormulaBlock {
  std::string_view name;
  FormulaKind kind;
  std::string_view meaning;  // one line, for the documentation and listings
  std::string_view theory;   // its THEORY label, or "—"
};

// Every block, in the order of the documentation's table.
std::span<const FormulaBlock> formula_blocks();

// The blocks' names and kinds (Formula's names).
FormulaNames formula_block_names();

// A formula over the blocks of `problem`: parsed and kind-checked (Formula), with `want` the kind
// its value must have (nullopt: any), and refused when it uses an exact moment of a problem that
// is not quadratic. Throws InputError naming `field`.
Formula problem_formula(const std::string& text, const std::string& field, const Problem& problem,
                        std::optional<FormulaKind> want = std::nullopt);

// "mean" needs a d-vector, "cov" a d×d matrix.
FormulaKind quantity_kind(std::string_view quantity);

// The blocks of one problem: its constants and expansion coefficients computed once, on first
// use; the moments of a setting per evaluation.
class FormulaBlocks {
 public:
  explicit FormulaBlocks(std::shared_ptr<const Problem> problem);

  // The formula's value at one setting (the algorithm as resolved, its step), `row` naming the
  // setting in the error thrown when the value is not finite ("at γ = 0.1, H = 2").
  FormulaValue evaluate(const Formula& formula, Algorithm algorithm, const RunSetting& step,
                        const std::string& row);

 private:
  const ProblemConstants& constants();
  const ExpansionCoefficients& coefficients();

  std::shared_ptr<const Problem> problem_;
  std::optional<ProblemConstants> constants_;
  std::optional<ExpansionCoefficients> coefficients_;
};

}  // namespace fedverify::theory
