// The run of claim games.gmm-identities with the penalised moment it maximises as a parameter
// (the real one: theory::gmm_penalised_moment, τᵀψ − ¼τᵀCτ), so that
// verify/games_planted_test.cpp can run it with a planted wrong objective (the ¼ replaced by ½).
#pragma once

#include <functional>

#include "theory/closed_forms/gmm_identities.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games {

using GmmObjective = std::function<double(const theory::GmmMoments&, const Vector& tau)>;

ClaimResult run_gmm_identities(const Context& ctx, const GmmObjective& objective);

}  // namespace fedverify::claims::games
