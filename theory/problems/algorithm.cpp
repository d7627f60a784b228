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

void validate_step(const RunSetting& s) {
  if (!std::isfinite(s.gamma) || s.gamma <= 0.0) {
    throw InputError(
        fmt::format("--gamma: step size must be a finite number > 0, got {}", s.gamma));
  }
  if (s.local_steps < 1) {
    throw InputError(fmt::format("--local-steps: H must be >= 1, got {}", s.local_steps));
  }
}

void validate(Algorithm algorithm, const RunSetting& s) {
  const AlgorithmDescriptor& d = describe(algorithm);
  // Its own parameters: each declared one present and as declared, no other (a setting built in
  // C++ rather than by resolve_algorithm passes the same checks).
  for (const AlgorithmParameter& p : d.parameters) {
    const auto it = s.parameters.find(p.key);
    if (it == s.parameters.end()) {
      if (!p.required && p.default_value.empty()) continue;  // absent: the run's own default
      throw InputError(fmt::format("{}: required by --algo {}", parameter_flag(p.key), d.name()));
    }
    check_parameter_values(p, it->second, parameter_flag(p.key));
  }
  for (const auto& [key, values] : s.parameters) {
    if (d.parameter(key) == nullptr) {
      throw InputError(
          fmt::format("{}: not a parameter of --algo {}", parameter_flag(key), d.name()));
    }
  }
  d.validate(s);
}

}  // namespace fedverify::theory
