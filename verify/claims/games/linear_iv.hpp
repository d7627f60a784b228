// The run of claim games.linear-iv with the GMM estimator formula it checks as a parameter (the
// real one: theory::gmm_estimator, M5), so that verify/games_planted_test.cpp can run it with a
// planted wrong formula.
#pragma once

#include <functional>

#include "theory/closed_forms/linear_iv_gmm.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games {

using GmmFormula =
    std::function<theory::GmmEquilibrium(const Matrix& g, const Matrix& w, const Vector& b)>;

ClaimResult run_linear_iv(const Context& ctx, const GmmFormula& gmm);

}  // namespace fedverify::claims::games
