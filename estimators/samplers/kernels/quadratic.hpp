// The quadratic kernel: the stochastic gradient of client c is
//
//   g_c(y) = A_c (y − b_c) + R_c z,   z ~ N(0, I),   R_c = noise_factor(c), so Cov = S_c,
//                                                                      THEORY (F0), (F5)
//
// with z drawn per chain, step and coordinate from the chain's batch stream (normals of step h,
// coordinate i at position h·d + i). The mat-vecs run on a block of kLanes chains with
// register-blocked rows (kernels/quadratic.cpp); no noise is drawn for a client with S_c = 0.
#pragma once

#include <vector>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::estimators {

class QuadraticSampler final : public LocalSampler {
 public:
  explicit QuadraticSampler(const theory::QuadraticProblem& problem);

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override;

 private:
  int d_;
  std::vector<std::vector<double>> a_, r_, ab_;  // A_c and R_c row-major, A_c b_c
  std::vector<bool> noisy_;                      // R_c ≠ 0
};

}  // namespace fedverify::estimators
