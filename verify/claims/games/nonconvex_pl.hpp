// The run of claim games.nonconvex-pl (THEORY M8) with the formulas it checks as parameters (the
// real ones by default), so that verify/claim_perturbations_games_slowtest.cpp can plant wrong
// ones.
#pragma once

#include <functional>

#include "theory/algorithms/fedgda_smooth.hpp"
#include "theory/closed_forms/local_minimax.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::games {

struct NonconvexPlFormulas {
  // The second-order test that classifies a stationary point (Jin et al.'s conditions).
  std::function<theory::MinimaxPoint(const theory::PlGame&, const Vector&)> second_order =
      theory::second_order_test;
  // The first-order offset of FedGDA's limit point from a stationary point (M2).
  std::function<Vector(const theory::PlGame&, const theory::GdaSetting&, const Vector&)>
      first_order = theory::fedgda_smooth_offset_first_order;
};

ClaimResult run_nonconvex_pl(const Context& ctx, const NonconvexPlFormulas& formulas);

}  // namespace fedverify::claims::games
