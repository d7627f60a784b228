// [SCAFFLSA]'s closed form of FedAvg's stationary mean on linear stochastic approximation
// (Mangold et al. 2024, their `compute_bias`; THEORY (L1), "Mean"):
//
//   E_π[x] = x* + (mean_c (I − (I − γĀ_c)^H))⁻¹ mean_c (I − (I − γĀ_c)^H)(θ_c − x*),
//   θ_c = Ā_c⁻¹ b̄_c,
//
// with matrix powers and Ā_c⁻¹: an independent route from the P_c form of fedavg_mean_lsa
// (theory/algorithms/linear_sa.hpp), equal to it because I − (I − γĀ_c)^H = γ P_c Ā_c.
#pragma once

#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

Vector scafflsa_fedavg_mean(const LinearSaProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
