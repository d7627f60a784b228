#include "theory/problems/algorithm.hpp"

#include <fmt/format.h>

#include <cmath>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

Algorithm parse_algorithm(const std::string& name, const std::string& field) {
  if (name == "sgd") return Algorithm::sgd;
  if (name == "fedavg") return Algorithm::fedavg;
  if (name == "scaffold") return Algorithm::scaffold;
  if (name == "fedrr") return Algorithm::fedrr;
  throw InputError(fmt::format(
      "{}: unknown algorithm \"{}\" (expected sgd, fedavg, scaffold or fedrr)", field, name));
}

std::string to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::sgd:
      return "sgd";
    case Algorithm::fedavg:
      return "fedavg";
    case Algorithm::scaffold:
      return "scaffold";
    case Algorithm::fedrr:
      return "fedrr";
  }
  return "?";
}

void validate(Algorithm algorithm, const StepSetting& s) {
  if (!std::isfinite(s.gamma) || s.gamma <= 0.0) {
    throw InputError(
        fmt::format("--gamma: step size must be a finite number > 0, got {}", s.gamma));
  }
  if (s.local_steps < 1) {
    throw InputError(fmt::format("--local-steps: H must be >= 1, got {}", s.local_steps));
  }
  if (algorithm == Algorithm::sgd && s.local_steps != 1) {
    throw InputError(fmt::format("--local-steps: sgd is FedAvg with H = 1 (THEORY G0), got H = {}",
                                 s.local_steps));
  }
}

}  // namespace fedverify::theory
