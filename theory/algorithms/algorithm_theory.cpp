#include "theory/algorithms/algorithm_theory.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <utility>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

std::map<std::string_view, std::unique_ptr<const AlgorithmTheory>>& theories() {
  static std::map<std::string_view, std::unique_ptr<const AlgorithmTheory>> registered;
  return registered;
}

}  // namespace

bool register_algorithm(AlgorithmDescriptor descriptor,
                        std::unique_ptr<const AlgorithmTheory> theory) {
  if (theory == nullptr) {
    throw std::logic_error(
        fmt::format("register_algorithm: {} registers no closed forms", descriptor.name()));
  }
  if (descriptor.family != AlgorithmFamily::chain) {
    throw std::logic_error(fmt::format(
        "register_algorithm: {}: AlgorithmTheory describes chain-family algorithms only",
        descriptor.name()));
  }
  const Algorithm algorithm = descriptor.algorithm;
  descriptor.has_closed_forms = true;
  register_algorithm(std::move(descriptor));  // throws for a name registered twice
  theories().emplace(algorithm.name(), std::move(theory));
  return true;
}

const AlgorithmTheory* find_algorithm_theory(Algorithm algorithm) {
  const auto it = theories().find(algorithm.name());
  return it == theories().end() ? nullptr : it->second.get();
}

const AlgorithmTheory& algorithm_theory(Algorithm algorithm) {
  if (const AlgorithmTheory* t = find_algorithm_theory(algorithm)) return *t;
  describe(algorithm);  // throws for an unknown name
  throw InputError(fmt::format("--algo: no stationary closed forms for {} (they exist for {})",
                               algorithm.name(), algorithm_names([](const AlgorithmDescriptor& d) {
                                 return find_algorithm_theory(d.algorithm) != nullptr;
                               })));
}

TrajectoryMoments exact_trajectory(const Problem& problem, Algorithm algorithm,
                                   const RunSetting& setting, const Vector& x0, int rounds) {
  if (x0.size() != problem.dim()) {
    throw InputError(fmt::format("--x0: expected {} numbers (the problem's dimension), got {}",
                                 problem.dim(), x0.size()));
  }
  if (!x0.allFinite()) throw InputError("--x0: must be finite");
  const AlgorithmTheory& theory = algorithm_theory(algorithm);
  require_client_weights(describe(algorithm), problem.equal_weights());
  if (std::optional<TrajectoryMoments> t = theory.exact_trajectory(problem, setting, x0, rounds)) {
    return *std::move(t);
  }
  throw InputError(fmt::format(
      "--rounds: no exact trajectory for {} on a {} problem (THEORY (T1): the chains that are "
      "linear Gaussian there, or affine with random coefficients on linear-sa; simulate gives "
      "the curve elsewhere)",
      algorithm.name(), to_string(problem.kind())));
}

}  // namespace fedverify::theory
