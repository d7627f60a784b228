// The embedded default problems that `fedverify report` and the claim suites run on. Every one
// is also written into results.json, so any row can be replayed with `fedverify simulate`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::claims {

struct NamedProblem {
  std::string name;         // e.g. "q-small"
  std::string description;  // one line for the report
  std::shared_ptr<const theory::Problem> problem;
};

// Heterogeneous quadratic problems with additive Gaussian noise (exact moments known).
const std::vector<NamedProblem>& default_quadratic_problems();

// Casts a quadratic NamedProblem (throws std::logic_error otherwise).
const theory::QuadraticProblem& as_quadratic(const NamedProblem& p);

}  // namespace fedverify::claims
