// The map claims whose compared-with formula is not a first-order prediction: their runs take the
// claimed rate (or limit) as a parameter, so a test can plant a wrong one
// (verify/planted/wrong_rates.hpp) and show that the claim then fails. The registered claims pass
// maps::claimed_rate. (The other maps compare with first-order moments, which tests replace through
// Context::predictor.)
#pragma once

#include <functional>
#include <string>

#include "theory/problems/quadratic_game.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/maps/common.hpp"
#include "verify/claims/optimisers/optimisers.hpp"

namespace fedverify::claims::maps {

// maps.contraction (verify/claims/maps/contraction.cpp).
ClaimResult contraction_map(const Context& ctx, const RateClaim& claimed);

// maps.adversarial (verify/claims/maps/adversarial.cpp).
ClaimResult adversarial_search(const Context& ctx, const RateClaim& claimed);

// maps.server-stability (verify/claims/maps/server_stability.cpp), with the server-step limit it
// compares the map with (the registered claim: theory::fedopt_server_step_limit).
ClaimResult server_stability_map(const Context& ctx, const optimisers::ServerStepLimit& limit);

// maps.fedgda-stability (verify/claims/maps/fedgda_stability.cpp), with the one-step stability
// limit of FedGDA it compares the map with (the registered claim: theory::fedgda_step_limit, M7).
using GdaStepLimit = std::function<double(const theory::QuadraticGame&, double step_ratio)>;
ClaimResult fedgda_stability_map(const Context& ctx, const GdaStepLimit& step_limit);

// maps.td-stability (verify/claims/maps/td_stability.cpp), with the step region in which it claims
// mean-square stability: edge(algorithm, L, H) is the region's largest γ, text its name. The
// registered claim: symmetric_stability_region() (FedAvg γL ≤ 1, Scaffold γHL ≤ 1, (F1), (S1)).
struct StabilityRegion {
  std::function<double(theory::Algorithm, double l, int h)> edge;
  std::function<std::string(theory::Algorithm)> text;
};
ClaimResult td_stability_map(const Context& ctx, const StabilityRegion& region);
const StabilityRegion& symmetric_stability_region();

}  // namespace fedverify::claims::maps
