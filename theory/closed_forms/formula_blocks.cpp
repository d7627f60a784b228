#include "theory/closed_forms/formula_blocks.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {
namespace {

using Kind = FormulaKind;

constexpr std::array kBlocks = {
    // The setting of the row.
    FormulaBlock{"gamma", Kind::scalar, "the step size γ (alias γ)", "§0"},
    FormulaBlock{"H", Kind::scalar, "the local steps per round (local_steps)", "§0"},
    FormulaBlock{"N", Kind::scalar, "the number of clients (the problem's)", "§0"},
    FormulaBlock{"S", Kind::scalar, "the clients sampled per round (participating; N when all)",
                 "(O5)"},
    FormulaBlock{"d", Kind::scalar, "the dimension", "§0"},
    // The problem's constants (theory::problem_constants).
    FormulaBlock{"L", Kind::scalar, "smoothness of the f_c", "§0"},
    FormulaBlock{"mu", Kind::scalar, "strong convexity of the f_c (alias μ)", "§0"},
    FormulaBlock{"zeta2", Kind::scalar, "ζ² = (1/N) Σ_c ‖∇f_c(x*)‖²", "(N3)"},
    FormulaBlock{"zeta2_second", Kind::scalar, "ζ₂² = (1/N) Σ_c ‖∇²f_c(x*) − 𝐇‖²_op", "(N3)"},
    FormulaBlock{"sigma2_star", Kind::scalar, "σ*² = tr C̄", "(N4)"},
    FormulaBlock{"x_star", Kind::vector, "the minimiser x* of f = (1/N) Σ_c f_c", "§0"},
    FormulaBlock{"Hess", Kind::matrix, "𝐇 = ∇²f(x*)", "§0"},
    // The expansion coefficients (theory::expansion_coefficients).
    FormulaBlock{"Cbar", Kind::matrix, "C̄ = (1/N) Σ_c C_c(x*), the noise covariance at x*", "§0"},
    FormulaBlock{"ACbar", Kind::matrix, "𝒜C̄: the solution Σ of 𝐇Σ + Σ𝐇 = C̄", "(N1)"},
    FormulaBlock{"AG", Kind::matrix, "𝒜G, G = (1/N) Σ_c ∇f_c(x*)∇f_c(x*)ᵀ", "(O5)"},
    FormulaBlock{"b_h", Kind::vector, "b_h = (1/(2N)) 𝐇⁻¹ Σ_c ∇²f_c(x*) ∇f_c(x*)", "(F3)"},
    FormulaBlock{"b_s", Kind::vector, "b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄]", "(F3)"},
    FormulaBlock{"I", Kind::matrix, "the d×d identity", "—"},
    // The moments fedverify predicts for the row's algorithm and setting.
    FormulaBlock{"mean_first_order", Kind::vector,
                 "the first-order stationary mean (theory::first_order; predict's "
                 "mean_first_order)",
                 "(F3), (S3), (G1), (R1), …"},
    FormulaBlock{"cov_first_order", Kind::matrix,
                 "the first-order E[(x − x*)(x − x*)ᵀ] (theory::first_order; predict's "
                 "cov_first_order)",
                 "(F2), (S2), (G1), (R2), …"},
    FormulaBlock{"mean_exact", Kind::vector,
                 "the exact stationary mean, quadratic problems (theory::exact_moments)",
                 "(F5), (S6), (O5), …"},
    FormulaBlock{"cov_exact", Kind::matrix,
                 "the exact stationary covariance about the mean, quadratic problems "
                 "(theory::exact_moments)",
                 "(F5), (S6), (O5), …"},
};

bool exact_block(const std::string& name) { return name == "mean_exact" || name == "cov_exact"; }

}  // namespace

std::span<const FormulaBlock> formula_blocks() { return kBlocks; }

FormulaNames formula_block_names() {
  FormulaNames names;
  for (const FormulaBlock& b : kBlocks) names.emplace(std::string(b.name), b.kind);
  return names;
}

FormulaKind quantity_kind(std::string_view quantity) {
  return quantity == "mean" ? Kind::vector : Kind::matrix;
}

Formula problem_formula(const std::string& text, const std::string& field, const Problem& problem,
                        std::optional<FormulaKind> want) {
  Formula f(text, field, formula_block_names(), problem.dim());
  if (want && f.kind() != *want) {
    throw InputError(fmt::format(
        "{}: the formula's value is {}; {} needs {}", field, describe(f.kind(), problem.dim()),
        *want == Kind::vector ? "a mean" : "a covariance", describe(*want, problem.dim())));
  }
  if (dynamic_cast<const QuadraticProblem*>(&problem) == nullptr) {
    for (const std::string& name : f.names()) {
      if (exact_block(name)) {
        throw InputError(
            fmt::format("{}: {} needs a quadratic problem (exact moments), got a {} "
                        "one",
                        field, name, to_string(problem.kind())));
      }
    }
  }
  return f;
}

FormulaBlocks::FormulaBlocks(std::shared_ptr<const Problem> problem)
    : problem_(std::move(problem)) {}

const ProblemConstants& FormulaBlocks::constants() {
  if (coefficients_) return coefficients_->constants;
  if (!constants_) constants_ = problem_constants(*problem_);
  return *constants_;
}

const ExpansionCoefficients& FormulaBlocks::coefficients() {
  if (!coefficients_) coefficients_ = expansion_coefficients(*problem_);
  return *coefficients_;
}

FormulaValue FormulaBlocks::evaluate(const Formula& formula, Algorithm algorithm,
                                     const RunSetting& step, const std::string& row) {
  std::optional<FirstOrderMoments> first;
  std::optional<ExactMoments> exact;
  const auto first_order_moments = [&]() -> const FirstOrderMoments& {
    if (!first) first = first_order(coefficients(), algorithm, step);
    return *first;
  };
  const auto exact_law = [&]() -> const ExactMoments& {
    if (!exact) {
      exact = exact_moments(dynamic_cast<const QuadraticProblem&>(*problem_), algorithm, step);
    }
    return *exact;
  };
  const int n = problem_->num_clients(), d = problem_->dim();
  const auto lookup = [&](const std::string& name) -> FormulaValue {
    using V = FormulaValue;
    if (name == "gamma") return V::of(step.gamma);
    if (name == "H") return V::of(step.local_steps);
    if (name == "N") return V::of(n);
    if (name == "S") return V::of(step.participating == 0 ? n : step.participating);
    if (name == "d") return V::of(d);
    if (name == "I") return V::of(Matrix(Matrix::Identity(d, d)));
    if (name == "L") return V::of(constants().l);
    if (name == "mu") return V::of(constants().mu);
    if (name == "zeta2") return V::of(constants().zeta2);
    if (name == "zeta2_second") return V::of(constants().zeta2_second);
    if (name == "sigma2_star") return V::of(constants().sigma_star2);
    if (name == "x_star") return V::of(constants().x_star);
    if (name == "Hess") return V::of(constants().hessian_at_optimum);
    if (name == "Cbar") return V::of(coefficients().noise_at_optimum);
    if (name == "ACbar") return V::of(coefficients().a_noise);
    if (name == "AG") return V::of(coefficients().a_heterogeneity);
    if (name == "b_h") return V::of(coefficients().b_heterogeneity);
    if (name == "b_s") return V::of(coefficients().b_stochastic);
    if (name == "mean_first_order") return V::of(first_order_moments().mean);
    if (name == "cov_first_order") return V::of(first_order_moments().cov);
    if (name == "mean_exact") return V::of(exact_law().mean);
    if (name == "cov_exact") return V::of(exact_law().cov);
    throw std::logic_error("formula block without a value: " + name);
  };
  FormulaValue value = formula.evaluate(lookup);
  if (!value.finite()) {
    throw InputError(
        fmt::format("{}: the value is not finite at {} (a division by 0, the log "
                    "or square root of a negative number, a singular inv, or an "
                    "overflow)",
                    formula.field(), row));
  }
  return value;
}

}  // namespace fedverify::theory
