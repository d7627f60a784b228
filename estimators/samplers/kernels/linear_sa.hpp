// The linear-sa kernel (THEORY (L0)): the stochastic field of client c at y is the minibatch mean
//     g = (1/B) Σ_b (A_{k_b} y − b_{k_b}),
// B sample indices k_b drawn with replacement per step and chain from the batch stream (as the
// logistic kernel draws its minibatch), with probabilities ∝ the samples' weights (Walker's alias
// method on two 32-bit words per draw; one word, a uniform index, when the weights are equal).
// Least squares, A_j = a_ja_jᵀ (λy added), and every client whose samples all have rank one
// (TD(0)) use the form u_j(v_jᵀy) − b_j on the 8 lanes at once, without forming A_j.
#pragma once

#include <memory>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::estimators {

std::unique_ptr<LocalSampler> make_linear_sa_sampler(const theory::LinearSaProblem& problem);

}  // namespace fedverify::estimators
