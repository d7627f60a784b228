// Planted formula errors (test-only): first-order predictions a careless implementation of
// docs/THEORY.md (F3), (S2), (R1) could ship, injected into the claims as their predictor
// (claims::Context::predictor), so the detection-power table (verify/power/power_table.cpp) can
// show how often the catalogue catches each one: gross errors (a factor 2, H for H − 1, a lost
// 1/N, a sign) and graded ones (a term off by 10 %, 25 %, 50 %; a term of the wrong order).
// Nothing here is linked into the fedverify command.
#pragma once

#include <string>
#include <vector>

#include "theory/closed_forms/expansions.hpp"

namespace fedverify::verify::planted {

enum class FormulaError {
  drop_half,                 // b_h and b_s without their factor 1/2
  h_instead_of_h_minus_one,  // FedAvg's heterogeneity bias γH b_h instead of γ(H−1) b_h
  drop_one_over_n,           // b_s and the covariance without their factor 1/N
  flip_stochastic_sign,      // +b_s instead of −b_s
};

std::vector<FormulaError> formula_errors();
std::string to_string(FormulaError error);
std::string describe(FormulaError error);  // what the error does, in one line

// theory::first_order with `error` applied to its result.
theory::FirstOrderMoments first_order_with(FormulaError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::RunSetting& setting);

// The first-order terms a graded perturbation scales.
enum class FirstOrderTerm {
  bias,        // both γ-terms of the mean, γ(H−1)b_h and γb_s (F3, S3): mean − x* scales
  covariance,  // (γ/N)𝒜C̄ (F2, S2; (6γ/N)𝒜C̄ for FedRR, R2)
};
std::string to_string(FirstOrderTerm term);

// theory::first_order with `term` multiplied by `factor` (1.1, 1.25, 1.5: a formula 10 %, 25 %,
// 50 % off).
theory::FirstOrderMoments first_order_scaled(FirstOrderTerm term, double factor,
                                             const theory::ExpansionCoefficients& k,
                                             theory::Algorithm algorithm,
                                             const theory::RunSetting& setting);

// theory::first_order plus a term of the wrong order: the first-order bias terms and covariance
// multiplied by 1 + √(γL), i.e. plus √(γL)·(first order) = O(γ^{3/2}), where the remainder is
// O(γ²) on quadratics (THEORY §8). It vanishes wherever the first order does (FedAvg's bias at
// H = 1 on quadratics, Scaffold's and FedRR's on quadratics).
theory::FirstOrderMoments first_order_with_three_halves_term(const theory::ExpansionCoefficients& k,
                                                             theory::Algorithm algorithm,
                                                             const theory::RunSetting& setting);

}  // namespace fedverify::verify::planted
