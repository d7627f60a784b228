// The coupled linearised twin (THEORY (L3)): a kernel on blocks of 2d rows whose rows 0 … d − 1
// are the chain x and rows d … 2d − 1 its twin y, driven by the same draws (same minibatch
// indices of the same client, step and chain) with the per-sample linearisation at x*,
//
//   g_lin(y; j) = ∇F(x*; j) + ∇²F(x*; j)(y − x*).                                  THEORY (L3)
//
// Design: the chain engine (chains.hpp, SamplerOptions::linearised_twin) keeps the stacked state
// (x, y) ∈ ℝ^{2d} of every chain, and every round (averaging, Scaffold's control variates, FedRR's
// two runs, FedOpt's client sampling and linear server optimisers) applies to it unchanged. That
// is the twin the theory asks for exactly because those operations act coordinate-wise and
// linearly on the state, so on the y rows they are the same algorithm run on the linearised
// problem with the same random coefficients (sample indices, client subsets). Non-linear server
// or client rules (Adam, FedExP's step, …) would couple the rows or apply the non-linear rule to
// y: the command line refuses them (no exact mean of y, theory::linearised_stationary_mean).
//
// x stays bit-identical to a plain run: the x rows are advanced by the plain kernel of the
// problem's kind (make_local_sampler) on the same pointers, the twin rows after it.
//
//   logistic: per sample j, with the signed row ã_j = s_j a_j and t_j = ã_jᵀx*,
//     ∇F(x*; j) = −w_j ã_j + λx*,  w_j = −φ'(t_j) = 1/(1 + e^{t_j}),
//     ∇²F(x*; j) = h_j ã_j ã_jᵀ + λI,  h_j = φ''(t_j) = p(1 − p)                    THEORY (§6)
//   so g_lin(y; j) = λy − (α_j − h_j ã_jᵀy) ã_j with α_j = w_j + h_j t_j (precomputed per
//   sample), and a step of batch B is y ← (1 − γλ)y + (γ/B) Σ_b (α_b − h_b ã_bᵀy) ã_b − γξ — no
//   exponential, one dot product per draw. The twin reads the minibatch offsets the logistic
//   kernel leaves in the workspace (kernels/logistic.hpp).
//   quadratic: the per-sample linearisation of a quadratic is the problem itself, so the twin is
//   the chain: y ← x after the x rows' steps, bit for bit (and every round keeps y ≡ x, since it
//   applies the same operations to both halves). x − y ≡ 0 and the control-variate estimate is the
//   exact mean (THEORY (L3)).
//
// Client optimisers other than SGD and FedProx are refused (InputError naming
// --control-variate).
#pragma once

#include <memory>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::estimators {

// The twin kernel of the problem's kind on blocks of 2·problem.dim() rows; throws InputError
// naming --control-variate for a kind without per-sample Hessians.
std::unique_ptr<LocalSampler> make_linearised_twin_sampler(const theory::Problem& problem);

}  // namespace fedverify::estimators
