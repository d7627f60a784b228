// Scaffold's control variates ξ_c of an ensemble, summarised for the engine's tests (tests only):
// the conserved sum Σ_c ξ_c (THEORY S0) and the largest variate, its scale.
#pragma once

#include <algorithm>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"

namespace fedverify::verify {

// max over coordinates and chains of |Σ_c ξ_c|.
inline double max_abs_sum_of_control_variates(const estimators::ChainEnsemble& e) {
  Matrix sum = Matrix::Zero(e.dim(), e.chains());
  for (int c = 0; c < e.num_clients(); ++c) sum += estimators::scaffold_correction(e, c);
  return sum.cwiseAbs().maxCoeff();
}

// max over clients, coordinates and chains of |ξ_c|.
inline double max_abs_control_variate(const estimators::ChainEnsemble& e) {
  double m = 0;
  for (int c = 0; c < e.num_clients(); ++c) {
    m = std::max(m, estimators::scaffold_correction(e, c).cwiseAbs().maxCoeff());
  }
  return m;
}

}  // namespace fedverify::verify
