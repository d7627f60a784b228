// Planted formula errors (test-only): first-order predictions a careless implementation of
// docs/THEORY.md (F3), (S2), (R1) could ship, injected into the claims as their predictor
// (claims::Context::predictor), so the planted-error and detection-power suites can show that
// the catalogue catches each one. Nothing here is linked into the fedverify command.
#pragma once

#include <span>

#include "theory/closed_forms/expansions.hpp"
#include "verify/planted/named.hpp"

namespace fedverify::verify::planted {

enum class FormulaError {
  drop_half,                 // b_h and b_s without their factor 1/2
  h_instead_of_h_minus_one,  // FedAvg's heterogeneity bias γH b_h instead of γ(H−1) b_h
  drop_one_over_n,           // b_s and the covariance without their factor 1/N
  flip_stochastic_sign,      // +b_s instead of −b_s
};

// Every error with its name, in the order above.
std::span<const Named<FormulaError>> formula_errors();

// theory::first_order with `error` applied to its result.
theory::FirstOrderMoments first_order_with(FormulaError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::StepSetting& setting);

}  // namespace fedverify::verify::planted
