// First-order expansions of the stationary law in the step size γ (THEORY §2–§5).
//
// The γ-independent coefficients are computed once per problem (ExpansionCoefficients) and
// assembled for each (algorithm, γ, H) by first_order(), which dispatches on the algorithm
// through the registry of theory/algorithms/algorithm_theory.hpp. Each algorithm's own formula
// is in theory/algorithms/<name>.hpp, included at the end of this header.
#pragma once

#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::theory {

struct ExpansionCoefficients {
  ProblemConstants constants;  // x*, 𝐇, μ, L, ζ², …
  // C̄ = (1/N) Σ_c C_c(x*); with client weights C̄_p = N Σ_c p_c² C_c(x*), the noise of the
  // server's average (THEORY (A1)), so that the first-order noise terms keep their form.
  Matrix noise_at_optimum;
  std::vector<Matrix> client_noise;  // C_c(x*)
  Matrix a_noise;                    // 𝒜C̄                                         THEORY (N1)
  Matrix a_heterogeneity;  // 𝒜G, G = (1/N) Σ_c ∇f_c(x*)∇f_c(x*)ᵀ                 THEORY (O5)
  Vector b_heterogeneity;  // b_h                                        THEORY (F3)
  Vector b_stochastic;     // b_s                                        THEORY (F3)
  int num_clients = 0;
  bool equal_weights = true;  // false: the averages are Σ_c p_c (THEORY (A1))
};

ExpansionCoefficients expansion_coefficients(const Problem& problem);

// b_h = (1/(2N)) 𝐇⁻¹ Σ_c ∇²f_c(x*) ∇f_c(x*) (½ 𝐇⁻¹ Σ_c p_c … with weights).  THEORY (F3), (A1)
Vector heterogeneity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian);
// b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄].                                            THEORY (F3)
Vector stochasticity_bias_coefficient(const Problem& problem, const Vector& x_star,
                                      const Matrix& hessian, const Matrix& a_noise);

struct FirstOrderMoments {
  Vector x_star;
  Vector mean;                // x* + bias_heterogeneity + bias_stochastic
  Vector bias_heterogeneity;  // the γ-scaled term, e.g. γ(H−1) b_h for FedAvg
  Vector bias_stochastic;     // the γ-scaled term, e.g. γ b_s
  Matrix cov;                 // E_π[(x − x*)(x − x*)ᵀ] at first order
};

// The first-order stationary moments of any algorithm that registered closed forms (FedAvg (F2,
// F3); SGD (G1); Scaffold (S2, S3); FedRR (R1, R2) with independent noise; …). Validates the
// setting; throws InputError naming --algo for an algorithm without closed forms.
FirstOrderMoments first_order(const ExpansionCoefficients& k, Algorithm algorithm,
                              const RunSetting& setting);

}  // namespace fedverify::theory

// The per-algorithm first-order formulas (fedavg_first_order, scaffold_first_order,
// scaffold_control_variate_first_order, fedrr_first_order), so that every caller of this header
// sees them. Included last: they use the types above.
#include "theory/algorithms/fedavg.hpp"    // IWYU pragma: export
#include "theory/algorithms/fedopt.hpp"    // IWYU pragma: export
#include "theory/algorithms/fedrr.hpp"     // IWYU pragma: export
#include "theory/algorithms/scaffold.hpp"  // IWYU pragma: export
