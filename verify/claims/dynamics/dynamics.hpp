// The dynamics claims whose compared-with formula is not a first-order prediction: their runs
// take that formula as a parameter, so a test can plant a wrong one (verify/planted/
// claim_perturbations.hpp) and show that the claim then fails. The registered claims pass the
// real formulas. (Claims that compare with first-order moments are perturbed through
// Context::predictor, and simulated chains through Context::round_for.)
#pragma once

#include <functional>

#include "theory/closed_forms/bounds.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/optimum.hpp"
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

// The inputs of a finite-time bound on one case of dynamics.finite-time-bounds.
struct BoundInputs {
  theory::RunSetting step;
  theory::ProblemConstants constants;  // μ, L (the f_c's global bounds), ζ², σ*²
  double q = 0;                        // certified bound on ∇³f_c (third_derivative_bound.hpp)
  int clients = 1;
  double initial_distance2 = 0;  // ‖x₀ − x*‖²
  double first_order_floor = 0;  // (T3)'s χ: first-order E_π‖x − x*‖² of FedAvg
};

// The finite-time bound of `algorithm` without its hidden constant: Scaffold's (S5), FedAvg's
// (T3) (theory/closed_forms/bounds.hpp). Throws std::logic_error for another algorithm.
using FiniteTimeBoundFormula =
    std::function<theory::FiniteTimeBound(theory::Algorithm, const BoundInputs&)>;
theory::FiniteTimeBound seed_finite_time_bound(theory::Algorithm algorithm, const BoundInputs& in);

// A family of quadratic problems indexed by the number of clients (dynamics_problems.hpp).
using SpeedupFamily = std::function<theory::QuadraticProblem(int clients)>;

// dynamics.gradient-complexity (verify/claims/dynamics/gradient_complexity.cpp).
ClaimResult gradient_complexity(const Context& ctx, const SpeedupFamily& family);

// The Polyak–Ruppert limit per round (theory::polyak_ruppert_covariance, THEORY (T5)).
using PolyakRuppertFormula =
    std::function<Matrix(const theory::ExpansionCoefficients&, const theory::RunSetting&)>;

// dynamics.polyak-ruppert (verify/claims/dynamics/polyak_ruppert.cpp).
ClaimResult polyak_ruppert(const Context& ctx, const PolyakRuppertFormula& limit);

// dynamics.finite-time-bounds (verify/claims/dynamics/finite_time_bounds.cpp).
ClaimResult finite_time_bounds(const Context& ctx, const FiniteTimeBoundFormula& bound);

}  // namespace fedverify::claims::dynamics
