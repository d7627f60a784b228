// FedAvg (THEORY F0): H local SGD steps on every client, then the server averages the models.
// Its closed forms: the first-order stationary moments (F2), (F3); on quadratic problems the
// exact round map and stationary moments (F5), the deterministic fixed point (F4) and the
// contraction factor of the round map. SGD (G0, G1) is FedAvg with H = 1 (sgd.cpp).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"

namespace fedverify::theory {

// Mean x* + γ(H−1)b_h + γb_s, covariance (γ/N)𝒜C̄.                      THEORY (F3), (F2)
FirstOrderMoments fedavg_first_order(const ExpansionCoefficients& k, const StepSetting& setting);

// FedAvg's round map on a quadratic problem.                                        THEORY (F5)
AffineRoundMap fedavg_round_map(const QuadraticProblem& problem, const StepSetting& setting);

// Exact stationary mean and covariance of FedAvg (THEORY F5); SGD is H = 1.
// Throws InputError("--gamma: …") when the spectral radius of the round map is ≥ 1.
ExactMoments fedavg_exact(const QuadraticProblem& problem, const StepSetting& setting);

// Deterministic FedAvg (no noise): the fixed point x_{γ,H} by the closed form of THEORY (F4),
// and the Lipschitz constant ‖M‖₂ of the round map (its contraction factor).
Vector fedavg_fixed_point(const QuadraticProblem& problem, const StepSetting& setting);
double fedavg_contraction_factor(const QuadraticProblem& problem, const StepSetting& setting);

}  // namespace fedverify::theory
