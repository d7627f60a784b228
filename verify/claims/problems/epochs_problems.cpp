#include "verify/claims/problems/epochs_problems.hpp"

#include <random>
#include <utility>
#include <vector>

namespace fedverify::claims {

theory::LinearSaProblem ls_epochs_problem(theory::SampleOrder order, int clients, int samples,
                                          int dim) {
  std::mt19937_64 rng(20261206);
  std::normal_distribution<double> z;
  std::vector<theory::LeastSquaresClient> out;
  for (int c = 0; c < clients; ++c) {
    theory::LeastSquaresClient k;
    k.features.resize(samples, dim);
    k.targets.resize(samples);
    for (int j = 0; j < samples; ++j) {
      for (int i = 0; i < dim; ++i) k.features(j, i) = z(rng) + 0.4 * c;
      k.targets(j) = 1.0 + c - k.features(j, 0) + 0.5 * z(rng);
    }
    out.push_back(std::move(k));
  }
  theory::LinearSaProblem p(std::move(out), 0.1, 1);
  p.set_sample_order(order);
  return p;
}

}  // namespace fedverify::claims
