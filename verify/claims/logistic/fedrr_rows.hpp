// The two rows of claim logistic.fedrr-order that decide the order of FedRR's bias from a pair of
// step sizes (γ, 2γ): its order (> 1, reaching 1.5) and the cancellation of its first-order term.
#pragma once

#include <string>

#include "theory/base/linalg.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/logistic/measurement.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"

namespace fedverify::claims::logistic {

// The order FedRR's bias must be able to reach (THEORY §8 bounds the remainder by
// O(γ²H² + γ^{3/2}H)).
inline constexpr double kReachableOrder = 1.5;

// Order of the FedRR bias from two step sizes γ and 2γ. If the bias is c·γ^p along a fixed
// direction u, then uᵀβ(2γ)/uᵀβ(γ) = 2^{p−1} for the scaled bias β = bias/γ, so p = 1 (FedAvg's
// order) means uᵀβ(2γ) = uᵀβ(γ). Decision: one-sided z test of uᵀ(β(2γ) − β(γ)) > 0 (rejects
// p ≤ 1; the two runs are independent, so the variances add), and p̂ = 1 + log₂ of the ratio with
// a delta-method interval, which must reach 1.5. u comes from an independent pilot run at the
// largest step, so that the projection is not fitted to the noise of the runs it is applied to.
Row order_row(const NamedProblem& np, const ScaledBias& low, const ScaledBias& high,
              const Vector& u, double alpha, const ScaledBias& pilot, double low_gamma_l,
              double high_gamma_l, int h, std::string& order_text);

// The first-order bias is cancelled: the scaled bias extrapolated to γ → 0 from the pair (γ, 2γ),
// a = 2β_RR(γ) − β_RR(2γ) (per replication: the runs are independent, so the a_g are i.i.d.), is 0
// for χ = 2x_γ − x_2γ up to the γ^{1/2} part of the remainder that the combination leaves
// (relative O(√γ·H), the kRichardsonMargin reason), whereas FedAvg's own iterate gives a = β₁ and
// the wrong weights (4x_γ − x_2γ)/3 give a = (2/3)β₁. Decision: z test (decide.hpp (e)) of aᵀv = 0
// within kRichardsonMargin·‖β₁‖, v = β₁/‖β₁‖ FedAvg's predicted first-order coefficient.
Row cancellation_row(const NamedProblem& np, const ScaledBias& low, const ScaledBias& high,
                     const Vector& fedavg_beta1, double alpha, double low_gamma_l,
                     double high_gamma_l, int h);

}  // namespace fedverify::claims::logistic
