// Planted errors in the first-order formulas of the optimiser claims (test-only): what a careless
// derivation of docs/THEORY.md (O2), (O3), (O5) could ship, injected as the claims' predictor
// (claims::Context::predictor). verify/optimiser_planted_test.cpp shows that each makes its claim
// fail (and that the claim passes without it).
#pragma once

#include <span>

#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::verify::planted {

enum class OptimiserError {
  momentum_not_in_covariance,  // (O2): covariance × η_g instead of × η_g/(1 − β)
  prox_shrinks_bias,  // (O3): heterogeneity bias / (1 + μ_p/μ), a first-order μ_p effect
  sampling_over_n,    // (O5): H(N − S)/N instead of H(N − S)/(N − 1)
};

// Every error with its name and the id of a claim that must catch it (an error may be listed for
// several claims), in the order above.
struct OptimiserErrorCase {
  OptimiserError error;
  const char* name;
  const char* claim;
};
std::span<const OptimiserErrorCase> optimiser_errors();

// theory::first_order with `error` applied to fedopt's result (other algorithms unchanged).
theory::FirstOrderMoments first_order_with(OptimiserError error,
                                           const theory::ExpansionCoefficients& k,
                                           theory::Algorithm algorithm,
                                           const theory::RunSetting& setting);

// The server-step limit of claim optimisers.server-stability with the momentum ignored:
// 2/(γ d_max) for every β and both forms (THEORY O2 has 2(1 + β)/(c γ d_max)).
double server_step_limit_without_momentum(const theory::QuadraticProblem& problem,
                                          const theory::RunSetting& setting);

// R₀ of claim optimisers.fedprox-bias with V = Σ_{j<H} jρ^j instead of Σ jρ^{j−1} (the factor
// (1 − γμ_p)^{j−1} of B̃^j's first-order term written ρ^j): R₀ × ≈ ρ, first-order coefficient
// (5 − H)/(6H) − 1/H, wrong at every H.
double fedprox_bias_ratio_limit_power_slip(double gamma_mu_h, int local_steps);

}  // namespace fedverify::verify::planted
