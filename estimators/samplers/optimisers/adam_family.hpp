// The keys the Adam family (Adam, NAdam, RAdam, AMSGrad, Adamax) and the adaptive-learning-rate
// family (Adagrad, RMSProp, Adadelta) read from their spec (theory/problems/optimiser.cpp, the
// table with Table 2.1's defaults), in one place.
#pragma once

#include "estimators/samplers/optimisers/update_rule.hpp"

namespace fedverify::estimators {

struct AdamKeys {
  double lr = 0, beta1 = 0, beta2 = 0, rho = 0, eps = 0;  // rho: RMSProp's, Adadelta's decay
  bool eps_in_sqrt = true;
};

// The keys of `spec` that it has (others stay 0), with step `lr`.
AdamKeys adam_keys(const theory::OptimiserSpec& spec, double lr);

// The Adam family's moments, one coordinate: m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g².
inline void update_moments(const AdamKeys& k, double g, double& m, double& v) {
  m = k.beta1 * m + (1.0 - k.beta1) * g;
  v = k.beta2 * v + (1.0 - k.beta2) * g * g;
}

}  // namespace fedverify::estimators
