// The FedGDA sampler on quadratic games (THEORY M0, M1): K independent chains of
//   each client i from z_t: R steps z ← z − D(M_i z + m_i + ξ),  ξ = L_i u,  u ~ N(0, I),
//   z_{t+1} = (1/N) Σ_i (client i's end point),   D = diag(α₁ I_p, α₂ I_q),
// with L_i L_iᵀ = S_i (a symmetric square root, so a singular S_i is fine). Chain k, client i,
// round t draws its R·(p + q) normals from the stream (seed, gradient_noise, k, i, t) of
// theory/base/rng.hpp, so a chain's path depends on neither K nor the number of threads.
//
// One chain at a time in plain Eigen (the games are small, p + q ≲ 20): not the lane engine of
// chains.hpp, whose kernels are built for the problem kinds of theory/problems/problem.hpp.
#pragma once

#include <cstdint>
#include <functional>

#include "theory/base/linalg.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/quadratic_game.hpp"

namespace fedverify::estimators {

struct FedgdaChains {
  const theory::QuadraticGame& game;
  theory::GdaSetting step;
  std::uint64_t seed = 0;
  int threads = 0;  // 0: all; never changes a number
};

// Advances the chains (the columns of `state`, (p + q) × K) by `rounds` rounds; after each round
// calls record(round, state) (round counted from 1) in the calling thread, in order. Throws
// InputError naming --alpha-theta when a chain leaves double range (no stationary law).
void run_fedgda(const FedgdaChains& chains, Matrix& state, int rounds,
                const std::function<void(int, const Matrix&)>& record);

}  // namespace fedverify::estimators
