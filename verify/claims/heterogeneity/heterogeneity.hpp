// The heterogeneity claims (verify/claims/heterogeneity/): their runs take the claimed contraction
// factor as a parameter, so a test can plant a wrong one (verify/planted/map_perturbations.hpp)
// and show that the claim then fails. The registered claims pass kit::claimed_rate.
#pragma once

#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::heterogeneity {

// heterogeneity.average-drift (verify/claims/heterogeneity/average_drift.cpp).
ClaimResult average_drift(const Context& ctx, const kit::RateClaim& claimed);

}  // namespace fedverify::claims::heterogeneity
