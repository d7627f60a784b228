// Planted errors in the FedOpt round (test-only), injected as a claim's round
// (claims::Context::round_for): what a careless implementation of FedExP (THEORY O4) or a
// bias-correcting server could ship. verify/optimiser_rounds_planted_test.cpp shows that each
// makes its claim fail (optimisers.fedexp, optimisers.adaptive-server).
#pragma once

#include <memory>

#include "estimators/samplers/round.hpp"

namespace fedverify::verify::planted {

// FedExP with ε·S in place of ε (the form of the authors' code, not the paper's): the stability
// threshold of (O4a) moves from ε* to ε*/S, so the chain settles at 0.9ε*.
std::shared_ptr<const estimators::RoundSampler> fedexp_eps_times_clients();

// FedExP whose extrapolation is lost: the server step is 1 (FedAvg's round) whatever ε.
std::shared_ptr<const estimators::RoundSampler> fedexp_without_extrapolation();

// A "server optimiser" that removes the heterogeneity bias: Scaffold's round (control variates)
// run in place of --algo fedopt, whatever --server says.
std::shared_ptr<const estimators::RoundSampler> fedopt_replaced_by_scaffold();

}  // namespace fedverify::verify::planted
