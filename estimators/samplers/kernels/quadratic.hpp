// The quadratic kernel: the stochastic gradient of client c is
//
//   g_c(y) = A_c (y − b_c) + R_c z,   z ~ N(0, I),   R_c = noise_factor(c), so Cov = S_c,
//                                                                      THEORY (F0), (F5)
//
// with z drawn per chain, step and coordinate from the chain's batch stream (normals of step h,
// coordinate i at position h·d + i; theory/base/normals.hpp, 8 chains per vectorised pass).
//
// Numerical strategy (kernels/quadratic.cpp): the noise terms w_h = R_c z_h − A_c b_c of all H
// steps do not depend on the iterate, so they are one matrix–matrix product per round, tiled
// 4 rows × up to 5 steps × kLanes chains, over R_c's triangular part only (R_c is lower triangular
// up to a row permutation: d(d+1)/2 instead of d² FMAs per step and chain); only g = A_c y + w_h
// and the update stay on the steps' serial path: for d ≤ 16 (AVX-512) with the block's iterate
// and all rows of g in registers across the H steps (one instantiation per d), above in 8-row
// tiles through memory. For d ≤ 10 and R_c of extents 1 … d (a full-rank S_c) the product is
// carried one step ahead inside the register steps, its FMAs interleaved with those of A y; two
// noisy clients of a pair draw their rounds' last short pass of normals together. Each sum runs
// over k = 0 … d − 1 in order whatever the tiling (and stops at the same k_end per row), so a
// chain's numbers do not depend on its block, on K or on the thread count, nor on which of these
// paths computed them. No noise is drawn for a client with S_c = 0.
#pragma once

#include <memory>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::estimators {

std::unique_ptr<LocalSampler> make_quadratic_sampler(const theory::QuadraticProblem& problem);

}  // namespace fedverify::estimators
