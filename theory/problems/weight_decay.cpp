#include "theory/problems/weight_decay.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

QuadraticProblem with_weight_decay(const QuadraticProblem& problem, double lambda) {
  if (!(std::isfinite(lambda) && lambda >= 0)) {
    throw InputError(fmt::format("--weight-decay: must be a finite number ≥ 0, got {}", lambda));
  }
  std::vector<QuadraticClient> clients;
  for (int c = 0; c < problem.num_clients(); ++c) {
    const QuadraticClient& k = problem.client(c);
    const Matrix decayed =
        k.hessian + lambda * Matrix::Identity(problem.dim(), problem.dim());  // THEORY (C1)
    clients.push_back({decayed, decayed.llt().solve(k.hessian * k.optimum), k.noise_cov});
  }
  QuadraticProblem out(std::move(clients));
  if (!problem.equal_weights()) out.set_client_weights(problem.raw_weights());  // THEORY (A1)
  return out;
}

}  // namespace fedverify::theory
