// The quadratic kernel: the stochastic gradient of client c is
//
//   g_c(y) = A_c (y − b_c) + R_c z,   z ~ N(0, I),   R_c = noise_factor(c), so Cov = S_c,
//                                                                      THEORY (F0), (F5)
//
// with z drawn per chain, step and coordinate from the chain's batch stream (normals of step h,
// coordinate i at position h·d + i). The mat-vecs run on a block of kLanes chains with
// register-blocked rows (kernels/quadratic.cpp); no noise is drawn for a client with S_c = 0.
#pragma once

#include <memory>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::estimators {

std::unique_ptr<LocalSampler> make_quadratic_sampler(const theory::QuadraticProblem& problem);

}  // namespace fedverify::estimators
