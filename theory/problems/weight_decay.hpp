// Weight decay as a problem transform (THEORY (C1), derived here; weight_decay_test checks it).
// A local step with weight decay λ, y ← y − γ(g + λy) with g a stochastic gradient of f_c, is a
// step of SGD on f_c + (λ/2)‖·‖² with the same noise. For a quadratic client
//   ∇f_c(y) + λy = A_c(y − b_c) + λy = (A_c + λI)(y − b_c^λ),   b_c^λ = (A_c + λI)⁻¹ A_c b_c,
// so every exact law of an algorithm whose local steps decay by λ (FedAvg, FedProx, Scaffold,
// server rules) is that algorithm's law on the problem with clients (A_c + λI, b_c^λ, S_c); its
// minimiser is (Ā + λI)⁻¹ (1/N) Σ_c A_c b_c. (torch.optim.SGD(weight_decay=λ) is this rule.)
#pragma once

#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::theory {

// The clients (A_c + λI, (A_c + λI)⁻¹A_c b_c, S_c); λ = 0 gives the same clients. Throws
// InputError naming --weight-decay unless λ is finite and ≥ 0.
QuadraticProblem with_weight_decay(const QuadraticProblem& problem, double lambda);

}  // namespace fedverify::theory
