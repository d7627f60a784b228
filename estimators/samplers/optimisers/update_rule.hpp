// The update rules of the FedOpt optimisers (THEORY O0, O1): what a client does with each
// stochastic gradient of its local steps, and what the server does with each round's
// pseudo-gradient Δ_t. One rule per file in this folder (sgd.cpp, adam.cpp, …, prodigy.cpp), each
// registered by name; the chain engine's FedOpt round (algorithms/fedopt.cpp) and the federated
// trainer of the optimiser study both apply them through this interface, so a rule exists once.
//
// Layout. A rule updates a block of `columns` independent optimisers at once, each a vector of
// dimension d, stored coordinate-major: element (i, column) at i·columns + column. The chain
// engine passes its blocks of kLanes chains (columns = kLanes, lanes.hpp); a single vector is
// columns = 1. Elementwise rules (Adam, …) loop over all d·columns entries; rules that use norms
// (DoG, DoWG, Prodigy) form one norm per column. Every column does exactly the same arithmetic
// whatever the other columns hold, so a chain's path does not depend on its block.
//
// State. A rule declares how many d×columns vectors (moments, the start x_0) and per-column
// scalars it keeps; the caller owns that memory (the engine: auxiliary states; the trainer: plain
// vectors) and passes it in a RuleState view. `start` initialises it (Table 2.1's
// initialisations) for optimisers starting at x; `update` is step t = 1, 2, … of Table 2.1.
// A client's state is reset at the start of every round (THEORY O0); the server's once.
//
// Printed rules of Table 2.1 that are typos are replaced by the standard rule; each file says
// which (RAdam's v_t = (1/β₂)v_{t−1} + …, THEORY O1).
#pragma once

#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/optimiser.hpp"

namespace fedverify::estimators {

// The caller-owned state of one block of optimisers.
struct RuleState {
  std::span<double* const> vectors;  // vector_count() buffers of d·columns doubles
  std::span<double* const> scalars;  // scalar_count() buffers of `columns` doubles (one per column)
};

class UpdateRule {
 public:
  virtual ~UpdateRule() = default;

  // The d×columns vectors and per-column scalars the rule keeps.
  virtual int vector_count() const { return 0; }
  virtual int scalar_count() const { return 0; }

  // Table 2.1's initialisation for optimisers starting at x (d×columns): moments 0, x_0 = x, ….
  // The default sets every vector and scalar to 0.
  virtual void start(int dim, int columns, const double* x, const RuleState& state) const;

  // Step t ≥ 1: x ← x − (the rule's step along g), in place, columns < active only (idle columns
  // past `active` may hold anything and are left as they are or updated, whichever is cheaper).
  virtual void update(int dim, int columns, int active, long t, double* x, const double* g,
                      const RuleState& state) const = 0;
};

// The rule of `spec` (its keys: β₁, β₂, ε, …) with base step `lr`: the server's lr key, or the
// client's γ (--gamma). Throws InputError naming the spec's flag when the spec's name has no rule
// (sgd with momentum is the server's own; fedprox and fedexp are rounds, not rules).
std::unique_ptr<const UpdateRule> make_update_rule(const theory::OptimiserSpec& spec, double lr);

// The names with a registered rule, sorted.
std::vector<std::string> update_rule_names();

// Registration (one per file): a factory from (spec, lr) to the rule.
using UpdateRuleFactory = std::unique_ptr<const UpdateRule> (*)(const theory::OptimiserSpec& spec,
                                                                double lr);
// Returns true (for a namespace-scope registrar); throws std::logic_error when `name` is taken.
bool register_update_rule(std::string_view name, UpdateRuleFactory factory);

// The widest block a rule takes (the chain engine's kLanes = 8; a rule's per-column scratch is
// on the stack). Wider blocks are a programming error (std::logic_error).
inline constexpr int kMaxRuleColumns = 16;

// Shared pieces of the rules.
// out[c] = Σ_i a(i, c)²: the squared norm of each column.
void column_squared_norms(int dim, int columns, const double* a, double* out);
// out[c] = Σ_i (a(i, c) − b(i, c))².
void column_squared_distances(int dim, int columns, const double* a, const double* b, double* out);
// The Adam family's denominator: √(v + ε) as Table 2.1 prints it (ε inside the root), or the
// usual √v + ε (key eps_in_sqrt = 0).                                             THEORY (O1)
inline double adaptive_denominator(double v, double eps, bool eps_in_sqrt) {
  return eps_in_sqrt ? std::sqrt(v + eps) : std::sqrt(v) + eps;
}

// A RuleState over owned memory, for callers outside the chain engine (the trainer, tests).
class OwnedRuleState {
 public:
  OwnedRuleState(const UpdateRule& rule, int dim, int columns);
  OwnedRuleState(const OwnedRuleState&) = delete;  // view() points into the members
  OwnedRuleState& operator=(const OwnedRuleState&) = delete;
  const RuleState& view() const { return view_; }

 private:
  std::vector<std::vector<double>> vectors_, scalars_;
  std::vector<double*> vector_ptrs_, scalar_ptrs_;
  RuleState view_;
};

}  // namespace fedverify::estimators
