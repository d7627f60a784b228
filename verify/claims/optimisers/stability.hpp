// The run of claim optimisers.server-stability with the server-step limit it checks as a
// parameter (the real one: theory::fedopt_server_step_limit), so that
// verify/optimiser_planted_test.cpp can run it with a planted wrong limit.
#pragma once

#include <functional>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::optimisers {

using ServerStepLimit =
    std::function<double(const theory::QuadraticProblem&, const theory::StepSetting&)>;

ClaimResult run_server_stability(const Context& ctx, const ServerStepLimit& limit);

}  // namespace fedverify::claims::optimisers
