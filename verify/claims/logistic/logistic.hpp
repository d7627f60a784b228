// The logistic claims whose setting is a parameter, so that a test can run them where the theory
// says they must fail (verify/claim_perturbations_slowtest.cpp); the registered claims pass the
// real setting.
#pragma once

#include "verify/claims/claim.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::logistic {

// logistic.scaffold-higher-order-bias (verify/claims/logistic/scaffold_higher_order_bias.cpp) at
// H = local_steps (registered: 3). At H = 1 Scaffold is SGD on the client average, every noise
// is averaged over the clients before it acts, and the claim must fail.
ClaimResult scaffold_higher_order_bias(const Context& ctx, int local_steps);

// logistic.stochastic-bias-second-order (verify/claims/logistic/stochastic_bias_second_order.cpp)
// on the named problem (registered: lr-homog).
ClaimResult stochastic_bias_second_order(const Context& ctx, const NamedProblem& problem);

}  // namespace fedverify::claims::logistic
