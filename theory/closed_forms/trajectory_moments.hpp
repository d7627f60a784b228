// The moments of the global model along a run, x_t for t = 0 … T (THEORY (T1); computed by
// trajectory.hpp and the algorithms' AlgorithmTheory::exact_trajectory).
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::theory {

struct TrajectoryMoments {
  std::vector<Vector> mean;       // E x_t
  std::vector<double> trace_cov;  // tr Cov x_t
};

}  // namespace fedverify::theory
