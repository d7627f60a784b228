// `fedverify simulate --control-variate linearised` (THEORY (L3); docs/DESIGN-EXTENSIONS.md,
// "Control variate"): the option's parsing and the JSON fields it adds.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "estimators/simulation/simulate.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::reports {

// "none" (the default): false; "linearised": true. Throws InputError naming --control-variate for
// any other text and for an algorithm whose family runner has no twin (family_runner.hpp: L2GD
// and the games have none).
bool parse_control_variate(const std::string& text, const theory::AlgorithmDescriptor& algorithm);

// The fields the option adds to simulate's JSON, from a run that did not diverge:
//   mean_cv               mean(x − y) + m_lin, the control-variate estimate of E_π[x]
//   mean_cv_mcse          the MCSE of mean(x − y) (m_lin is exact)
//   linearised_mean_exact m_lin, the twin's exact stationary mean
//   (theory::linearised_stationary_mean)
// Throws InputError naming a field that is not finite.
nlohmann::json control_variate_fields(const estimators::SimulationResult& result,
                                      const Vector& linearised_mean);

}  // namespace fedverify::reports
