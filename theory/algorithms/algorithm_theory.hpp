// The closed forms of an algorithm, looked up by its name: the theory half of "the algorithm is
// the unit of extension" (the descriptor half is theory/problems/algorithm_registry.hpp).
//
// Each algorithm's file under theory/algorithms/ defines its formulas as free functions
// (fedavg_exact, scaffold_first_order, …), wraps them in an AlgorithmTheory and registers it with
// its descriptor from a namespace-scope registrar:
//     const bool registered = register_algorithm({...descriptor...}, std::make_unique<X>());
// first_order() (expansions.hpp), exact_moments() (exact.hpp) and `fedverify predict` then
// reach it by name; no switch on the algorithm exists anywhere.
#pragma once

#include <memory>
#include <optional>

#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/linear_sa_problem.hpp"

namespace fedverify::theory {

class AlgorithmTheory {
 public:
  virtual ~AlgorithmTheory() = default;

  // Whether first_order() has an expansion. An algorithm with exact closed forms only (FedNova:
  // its per-client H_c need per-client terms the expansion coefficients do not keep) returns
  // false here and throws InputError from first_order(); predict then gives its exact fields on
  // quadratic problems and refuses other problems.
  virtual bool has_first_order() const { return true; }

  // The first-order stationary moments in γ, every field filled (mean = x* + both biases).
  virtual FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                        const RunSetting& setting) const = 0;

  // Whether exact() has closed forms (on quadratic problems with additive Gaussian noise). An
  // algorithm without them returns false here and throws InputError from exact().
  virtual bool has_exact() const { return true; }

  // The exact stationary moments of the global model x. Throws InputError naming --gamma when
  // the round map does not contract.
  virtual ExactMoments exact(const QuadraticProblem& problem, const RunSetting& setting) const = 0;

  // The exact stationary moments of the whole chain state when it is more than x, x first
  // (Scaffold: (x, ξ_1, …, ξ_N)); nullopt when the state is x alone. When given, its leading
  // dim() block equals exact(): callers may take x from it instead of calling exact() as well.
  virtual std::optional<ExactMoments> exact_state(const QuadraticProblem& /*problem*/,
                                                  const RunSetting& /*setting*/) const {
    return std::nullopt;
  }

  // The exact stationary moments of x on a linear stochastic approximation problem with
  // multiplicative noise (THEORY (L1); theory/algorithms/linear_sa.hpp), or nullopt when the
  // algorithm has none there. Throws InputError naming --gamma as exact() does.
  virtual std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& /*problem*/,
                                                      const RunSetting& /*setting*/) const {
    return std::nullopt;
  }
  // As exact_state(), on a linear-sa problem (Scaffold's stacked (x, ξ_1, …, ξ_N)).
  virtual std::optional<ExactMoments> exact_state_linear_sa(const LinearSaProblem& /*problem*/,
                                                            const RunSetting& /*setting*/) const {
    return std::nullopt;
  }

  // The exact moments of x_t, t = 0 … rounds, from x_0 = x0 with the auxiliary states at 0
  // (THEORY (T1), theory/closed_forms/trajectory.hpp), on the problem's kind where the algorithm
  // has them; nullopt elsewhere. Throws InputError naming the option a setting it does not cover
  // (--participating, --rounds).
  virtual std::optional<TrajectoryMoments> exact_trajectory(const Problem& /*problem*/,
                                                            const RunSetting& /*setting*/,
                                                            const Vector& /*x0*/,
                                                            int /*rounds*/) const {
    return std::nullopt;
  }
};

// The exact trajectory of `algorithm` (THEORY (T1)): x0 of the problem's dimension (InputError
// naming --x0), then AlgorithmTheory::exact_trajectory; InputError naming --rounds when the
// algorithm has none on this problem's kind.
TrajectoryMoments exact_trajectory(const Problem& problem, Algorithm algorithm,
                                   const RunSetting& setting, const Vector& x0, int rounds);

// Registers `descriptor` (with has_closed_forms = true) and its closed forms. Returns true (for
// a namespace-scope registrar); throws std::logic_error as register_algorithm(descriptor) does.
bool register_algorithm(AlgorithmDescriptor descriptor,
                        std::unique_ptr<const AlgorithmTheory> theory);

// The closed forms registered for `algorithm`, or nullptr.
const AlgorithmTheory* find_algorithm_theory(Algorithm algorithm);

// The closed forms registered for `algorithm`. Throws InputError naming --algo for an unknown
// algorithm (listing every registered name) or one without closed forms (listing those with).
const AlgorithmTheory& algorithm_theory(Algorithm algorithm);

}  // namespace fedverify::theory
