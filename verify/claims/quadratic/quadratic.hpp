// The exact quadratic claims whose compared-with formula is a closed form other than the first-
// order moments: their runs take it as a parameter, so a test can plant a wrong one (verify/
// planted/claim_perturbations.hpp) and show that the claim then fails. The registered claims pass
// the real formulas.
#pragma once

#include <functional>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::quadratic {

// Scaffold's exact stationary mean of x (theory::scaffold_exact, THEORY (S6)).
using ScaffoldMeanFormula =
    std::function<Vector(const theory::QuadraticProblem&, const theory::RunSetting&)>;

// quadratic.scaffold-unbiased (verify/claims/quadratic/scaffold_unbiased.cpp).
ClaimResult scaffold_unbiased(const Context& ctx, const ScaffoldMeanFormula& scaffold_mean);

// Scaffold's control-variate moments at first order (theory::scaffold_control_variate_first_order,
// THEORY (S4)).
using ControlVariateFormula = std::function<theory::ScaffoldControlVariateMoments(
    const theory::Problem&, const theory::ExpansionCoefficients&, const theory::RunSetting&)>;

// quadratic.scaffold-control-variate-covariance
// (verify/claims/quadratic/scaffold_control_variate_covariance.cpp).
ClaimResult scaffold_control_variate_covariance(const Context& ctx,
                                                const ControlVariateFormula& first_order);

// FedAvg's second-order coefficients (theory::fedavg_second_order, THEORY (F7)).
using SecondOrderFormula = std::function<theory::FedavgSecondOrder(
    const theory::QuadraticProblem&, const theory::ExpansionCoefficients&, int local_steps)>;

// quadratic.remainder-h-exponent (verify/claims/quadratic/remainder_h_exponent.cpp).
ClaimResult remainder_h_exponent(const Context& ctx, const SecondOrderFormula& second_order);

// The weight w of (S1)'s metric ‖x‖² + w Σ_c ‖ξ_c‖² (theory::scaffold_s1_weight).
using MetricWeight = std::function<double(const theory::RunSetting&, int clients)>;

// quadratic.scaffold-weighted-contraction
// (verify/claims/quadratic/scaffold_weighted_contraction.cpp).
ClaimResult scaffold_weighted_contraction(const Context& ctx, const MetricWeight& weight,
                                          const kit::RateClaim& claimed);

}  // namespace fedverify::claims::quadratic
