// The logistic kernel: the stochastic gradient of client c is the mean over a minibatch of B
// indices j_b, uniform with replacement over the client's n_c samples, of φ'(s_j) y_j a_j, plus
// λy (THEORY §6), run by the fused kernel of kernels/logistic_kernel.hpp on the signed rows
// ã_j = y_j a_j. Two clients of the same block are interleaved (local_steps_pair).
#pragma once

#include <cstdint>
#include <vector>

#include "estimators/samplers/kernels/local_sampler.hpp"
#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::estimators {

class LogisticSampler final : public LocalSampler {
 public:
  explicit LogisticSampler(const theory::LogisticProblem& problem);

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override;

  void local_steps_pair(int client, BatchAddress address, int active, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, KernelWorkspace& ws) const override;

 private:
  // The kernel's view of one client's round on one block. Minibatch indices of the whole round,
  // lane-interleaved: chain first + l's index (step h, draw b) at (h·B + b)·kLanes + l, from that
  // chain's own stream (idle lanes draw from the streams of the chains past the end; their
  // results are discarded), stored as row offsets j·d in `offsets`.
  simd::LogisticBlock block(int client, const BatchAddress& address, double gamma, int steps,
                            std::vector<std::uint32_t>& offsets) const;

  int d_;
  double l2_;
  int batch_;
  std::vector<std::vector<double>> features_;  // signed rows ã_j, row-major n_c × d, padded
  std::vector<int> samples_;                   // n_c
};

}  // namespace fedverify::estimators
