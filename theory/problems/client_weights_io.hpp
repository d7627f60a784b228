// Client weights in problem files (docs/PROBLEM_FORMATS.md, "Client weights"; THEORY (A1)).
//
// Every kind: a client object may carry "weight": p_c > 0 (relative, default 1; normalised to
// Σ_c p_c = 1). Data-backed kinds (logistic, least-squares) may instead say
// "client_weights": "data-size" at top level: p_c ∝ n_c, the client's number of rows (FedAvg's
// weighting in McMahan et al. and in most frameworks); "equal" is the default.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// Reads the weights of the problem object `j` into `problem` (parsed from it). Throws InputError
// naming the field: "p.json: clients[2].weight: must be a finite number > 0, got -1",
// "p.json: client_weights: \"data-size\" needs a kind whose clients hold rows of data …".
void read_client_weights(Problem& problem, const nlohmann::json& j, const std::string& at);

// Adds "weight" to every client object of `j` (problem_to_json's output) when the problem's
// weights are unequal; the weights as given (raw_weights), so data sizes stay data sizes.
void write_client_weights(const Problem& problem, nlohmann::json& j);

}  // namespace fedverify::theory
