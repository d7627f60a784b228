#include "theory/problems/algorithm.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::theory {

Algorithm parse_algorithm(const std::string& name, const std::string& field) {
  if (const AlgorithmDescriptor* d = find_algorithm(name)) return d->algorithm;
  throw InputError(fmt::format("{}: unknown algorithm \"{}\" (expected {})", field, name,
                               algorithm_names([](const AlgorithmDescriptor&) { return true; })));
}

std::string to_string(Algorithm algorithm) { return std::string(algorithm.name()); }

std::ostream& operator<<(std::ostream& out, Algorithm algorithm) { return out << algorithm.name(); }

void validate_step(const StepSetting& s) {
  if (!std::isfinite(s.gamma) || s.gamma <= 0.0) {
    throw InputError(
        fmt::format("--gamma: step size must be a finite number > 0, got {}", s.gamma));
  }
  if (s.local_steps < 1) {
    throw InputError(fmt::format("--local-steps: H must be >= 1, got {}", s.local_steps));
  }
}

void validate(Algorithm algorithm, const StepSetting& s) { describe(algorithm).validate(s); }

}  // namespace fedverify::theory
