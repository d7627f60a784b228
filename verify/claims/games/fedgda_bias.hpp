// The run of claim games.fedgda-bias with the first-order formula it checks as a parameter (the
// real one: theory::fedgda_first_order), so that verify/fedgda_planted_test.cpp can run it with a
// planted wrong formula.
#pragma once

#include <functional>

#include "theory/algorithms/fedgda.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games {

using GdaFirstOrderFormula =
    std::function<theory::GdaFirstOrder(const theory::QuadraticGame&, const theory::GdaSetting&)>;

ClaimResult run_fedgda_bias(const Context& ctx, const GdaFirstOrderFormula& first_order);

}  // namespace fedverify::claims::games
