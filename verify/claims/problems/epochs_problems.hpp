// ls-epochs: the least-squares problems of claim optimisers.reshuffled-epochs (THEORY (A4)): N
// clients of n rows in d, features N(0, I) shifted by 0.4c, targets 1 + c − x₁ + 0.5·N(0, 1),
// λ = 0.1, B = 1, from a fixed seed; the same data with either sample order.
#pragma once

#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::claims {

theory::LinearSaProblem ls_epochs_problem(theory::SampleOrder order, int clients, int samples,
                                          int dim);

}  // namespace fedverify::claims
