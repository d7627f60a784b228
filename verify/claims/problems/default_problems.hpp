// The embedded default problems that `fedverify report` and the claim suites run on. Every one
// is also written into results.json, so any row can be replayed with `fedverify simulate`.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::claims {

// (bugprone-exception-escape: nlohmann::json's moves are not declared noexcept, as in claim.hpp.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct NamedProblem {
  std::string name;         // e.g. "q-small"
  std::string description;  // one line for the report
  std::shared_ptr<const theory::Problem> problem;
  // For a large generated problem: the generator record that rebuilds it (results.json lists it
  // instead of the problem's data). Null: results.json lists the problem file itself.
  nlohmann::json generator = nullptr;
};

// Heterogeneous quadratic problems with additive Gaussian noise (exact moments known).
const std::vector<NamedProblem>& default_quadratic_problems();

// Casts a quadratic NamedProblem (throws std::logic_error otherwise).
const theory::QuadraticProblem& as_quadratic(const NamedProblem& p);

}  // namespace fedverify::claims
