// The dynamics claims whose compared-with formula is not a first-order prediction: their runs
// take that formula as a parameter, so a test can plant a wrong one (verify/planted/
// claim_perturbations.hpp) and show that the claim then fails. The registered claims pass the
// real formulas. (Claims that compare with first-order moments are perturbed through
// Context::predictor, and simulated chains through Context::round_for.)
#pragma once

#include <functional>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics {

// The exact stationary moments of x (theory::exact_moments, THEORY (F5), (S6)).
using ExactMomentsFormula = std::function<theory::ExactMoments(
    const theory::QuadraticProblem&, theory::Algorithm, const theory::RunSetting&)>;

// dynamics.linear-speedup (verify/claims/dynamics/linear_speedup.cpp).
ClaimResult linear_speedup(const Context& ctx, const ExactMomentsFormula& exact);

// (F1)'s contraction factor after `rounds` rounds, (1 − γμ)^{Ht} (theory::fedavg_contraction).
using ContractionFactor = std::function<double(const theory::RunSetting&, double mu, int rounds)>;

// dynamics.w2-contraction (verify/claims/dynamics/w2_contraction.cpp).
ClaimResult w2_contraction(const Context& ctx, const ContractionFactor& contraction);

// dynamics.scaffold-bound-shape (verify/claims/dynamics/scaffold_bound_shape.cpp).
ClaimResult scaffold_bound_shape(const Context& ctx, const kit::RateClaim& claimed);

}  // namespace fedverify::claims::dynamics
