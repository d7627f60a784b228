// The heterogeneity claims (verify/claims/heterogeneity/): their runs take the claimed contraction
// factor as a parameter, so a test can plant a wrong one (verify/planted/map_perturbations.hpp)
// and show that the claim then fails. The registered claims pass kit::claimed_rate.
#pragma once

#include <functional>

#include "theory/closed_forms/expansions.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::heterogeneity {

// heterogeneity.average-drift (verify/claims/heterogeneity/average_drift.cpp).
ClaimResult average_drift(const Context& ctx, const kit::RateClaim& claimed);

// heterogeneity.weighted-clients (verify/claims/heterogeneity/weighted_clients.cpp), with the
// first-order stationary covariance it compares the exact law with (a test plants the source's
// hint, THEORY (A1)); the registered claim passes weighted_first_order_covariance.
using WeightedCovariance = std::function<Matrix(
    const theory::Problem&, const theory::ExpansionCoefficients&, const theory::RunSetting&)>;
Matrix weighted_first_order_covariance(const theory::Problem& p,
                                       const theory::ExpansionCoefficients& k,
                                       const theory::RunSetting& s);
ClaimResult weighted_clients(const Context& ctx, const WeightedCovariance& covariance);

}  // namespace fedverify::claims::heterogeneity
