// The run of claim games.client-epsilon with the closed forms it checks as a parameter (the real
// one: theory::client_epsilon), so that verify/games_planted_test.cpp can run it with a planted
// wrong gap formula or bound constant.
#pragma once

#include <functional>

#include "theory/closed_forms/game_equilibria.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games {

using ClientEpsilonFormula =
    std::function<theory::ClientEpsilon(const theory::QuadraticGame&, int client)>;

ClaimResult run_client_epsilon(const Context& ctx, const ClientEpsilonFormula& formula);

}  // namespace fedverify::claims::games
