// The logistic kernel: the stochastic gradient of client c is the mean over a minibatch of B
// indices j_b, uniform with replacement over the client's n_c samples, of φ'(s_j) y_j a_j, plus
// λy (THEORY §6), run on the signed rows ã_j = y_j a_j by the fused kernel of
// kernels/logistic_kernel.hpp. Two clients of the same block are interleaved (local_steps_pair).
// Every call leaves the round's minibatch row offsets j_{h,b}·d (lane l of step h, draw b at
// (h·B + b)·kLanes + l) in the workspace: ws.indices, and ws.indices_pair for local_steps_pair's
// second client. The linearised twin (kernels/linearised_twin.hpp) reads them to use the same
// draws.
#pragma once

#include <memory>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::estimators {

std::unique_ptr<LocalSampler> make_logistic_sampler(const theory::LogisticProblem& problem);

}  // namespace fedverify::estimators
