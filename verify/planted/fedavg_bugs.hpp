// Planted FedAvg bugs (test-only): aggregation bugs that real federated-learning frameworks
// shipped, written as FedAvg rounds (estimators/samplers/algorithms/fedavg.hpp) to inject through
// SamplerOptions::round or claims::Context::round_for. The detection-power table
// (verify/power/power_table.cpp) measures how often each claim of the catalogue catches each one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "estimators/samplers/round.hpp"

namespace fedverify::verify::planted {

enum class FedAvgBug {
  // The server divides Σ_c y_c by N + 1 (an off-by-one in the client count): weights 1/(N + 1)
  // that sum to N/(N + 1) instead of one, which shrinks every average towards 0.
  weights_sum_below_one,
};

std::vector<FedAvgBug> fedavg_bugs();
std::string to_string(FedAvgBug bug);
std::string describe(FedAvgBug bug);  // what the bug does, in one line

// The FedAvg round (also SGD's, which is FedAvg with H = 1) with `bug` planted.
std::shared_ptr<const estimators::RoundSampler> fedavg_round_with(FedAvgBug bug);

// FedLab #305: a server that averages the client iterates with equal weights, (1/N) Σ_c y_c,
// whatever the client weights p_c of the problem (THEORY (A1)). Not one of fedavg_bugs(): it
// changes nothing on an equally weighted problem, so of the detection-power table's claims only
// those with weighted clients (fedavg.weighted-clients) could see it; their own perturbation test
// plants it (verify/claim_perturbations_weights_slowtest.cpp).
std::shared_ptr<const estimators::RoundSampler> fedavg_round_ignoring_client_weights();

}  // namespace fedverify::verify::planted
