// First-order expansions of the stationary law in the step size γ (THEORY §2–§5).
//
// The γ-independent coefficients are computed once per problem (ExpansionCoefficients) and
// assembled for each (algorithm, γ, H) by first_order().
#pragma once

#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

struct ExpansionCoefficients {
  ProblemConstants constants;        // x*, 𝐇, μ, L, ζ², …
  Matrix noise_at_optimum;           // C̄ = (1/N) Σ_c C_c(x*)
  std::vector<Matrix> client_noise;  // C_c(x*)
  Matrix a_noise;                    // 𝒜C̄                                         THEORY (N1)
  Vector b_heterogeneity;            // b_h                                        THEORY (F3)
  Vector b_stochastic;               // b_s                                        THEORY (F3)
  int num_clients = 0;
};

ExpansionCoefficients expansion_coefficients(const Problem& problem);

// b_h = (1/(2N)) 𝐇⁻¹ Σ_c ∇²f_c(x*) ∇f_c(x*).                                  THEORY (F3)
Vector heterogeneity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian);
// b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄].                                            THEORY (F3)
Vector stochasticity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian, const Matrix& a_noise);

// Test-only hook (issue 4): formula errors a careless implementation could make, planted on
// purpose so the claim suites can show that they catch each one. `none` in all normal use.
enum class PlantedFormulaError {
  none,
  drop_half,                 // b_h and b_s without their factor 1/2
  h_instead_of_h_minus_one,  // heterogeneity bias γH b_h instead of γ(H−1) b_h
  drop_one_over_n,           // b_s and the covariance without their factor 1/N
  flip_stochastic_sign,      // +b_s instead of −b_s
};

struct FirstOrderMoments {
  Vector x_star;
  Vector mean;                // x* + bias_heterogeneity + bias_stochastic
  Vector bias_heterogeneity;  // the γ-scaled term, e.g. γ(H−1) b_h for FedAvg
  Vector bias_stochastic;     // the γ-scaled term, e.g. γ b_s
  Matrix cov;                 // E_π[(x − x*)(x − x*)ᵀ] at first order
};

// FedAvg (F2, F3): mean x* + γ(H−1)b_h + γb_s, covariance (γ/N)𝒜C̄.
// SGD (G1): FedAvg with H = 1. Scaffold (S2, S3): mean x* + γb_s, covariance (γ/N)𝒜C̄.
// FedRR (R1, R2), independent noise: mean x*, both biases 0, covariance (6γ/N)𝒜C̄.
FirstOrderMoments first_order(const ExpansionCoefficients& k, Algorithm algorithm,
                              const StepSetting& setting,
                              PlantedFormulaError planted = PlantedFormulaError::none);

// Scaffold control-variate covariance blocks at first order (THEORY S4), with C_c = C_c(x*).
struct ScaffoldControlVariateMoments {
  std::vector<Matrix> xi_xi;  // Σ^ξ_(c,c'), index c·N + c'
  std::vector<Matrix> x_xi_plus;  // Σ^{x,ξ}_(c) as printed: +(γ/N)𝒜C̄(∇²f_c − 𝐇) + (γ/N)(C_c − C̄)
  std::vector<Matrix> x_xi_minus;  // the candidate with a minus sign on the first term
  int num_clients = 0;
  const Matrix& cov_xi(int c, int c2) const { return xi_xi[c * num_clients + c2]; }
};
ScaffoldControlVariateMoments scaffold_control_variate_first_order(const Problem& problem,
                                                                   const ExpansionCoefficients& k,
                                                                   const StepSetting& setting);

}  // namespace fedverify::theory
