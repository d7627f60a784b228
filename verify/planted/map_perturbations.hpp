// Planted perturbations of the validity maps (test-only): a wrong claimed contraction rate,
// passed to the map runs of verify/claims/maps/maps.hpp, and a first-order predictor with the
// wrong H-dependence, injected as claims::Context::predictor. verify/maps_test.cpp shows that each
// makes its map claims fail. Nothing here is linked into the fedverify command.
#pragma once

#include "theory/closed_forms/expansions.hpp"

namespace fedverify::verify::planted {

// (1 − γL)^H instead of (1 − γμ)^H (THEORY F1, S1 with μ and L swapped): a rate far faster
// than any round map achieves unless every Hessian is a multiple of the identity. Read as 0 when
// γL ≥ 1, as the real claimed rate is beyond γμ ≥ 1.
double rate_with_l_for_mu(const theory::RunSetting& step, double mu, double l);

// theory::first_order with FedAvg's heterogeneity bias γ·H(H−1)/2·b_h instead of γ(H−1)b_h
// (THEORY F3): the local drifts summed over the H steps instead of averaged. Equal at H = 2,
// wrong by (H/2)× beyond.
theory::FirstOrderMoments first_order_summed_drift(const theory::ExpansionCoefficients& k,
                                                   theory::Algorithm algorithm,
                                                   const theory::RunSetting& step);

}  // namespace fedverify::verify::planted
