// RFA (Pillutla, Kakade & Harchaoui 2022; the thesis §2.1), THEORY (A6): FedAvg's local steps with
// a robust aggregation rule in place of the mean — the smoothed geometric median (`--algo rfa`,
// rfa.cpp) or the coordinate-wise trimmed mean (`--algo trimmed-mean`, trimmed_mean.cpp). The
// rules are nonlinear, so neither has an exact law or a first-order expansion here: the samplers
// measure them, and theory/closed_forms/rfa_fixed_point.hpp gives the limit of the geometric
// median's deterministic fixed point as γ → 0.
#pragma once

#include "theory/algorithms/algorithm_theory.hpp"

namespace fedverify::theory {

// The closed forms of a robust rule: none. first_order() and exact() throw InputError naming
// --algo (`name`); predict gives x* and the problem's constants only.
class RobustAggregationTheory final : public AlgorithmTheory {
 public:
  explicit RobustAggregationTheory(const char* name) : name_(name) {}
  bool has_first_order() const override { return false; }
  bool has_exact() const override { return false; }
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& setting) const override;
  ExactMoments exact(const QuadraticProblem& problem, const RunSetting& setting) const override;

 private:
  const char* name_;
};

}  // namespace fedverify::theory
