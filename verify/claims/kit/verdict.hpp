// The equivalence part of a statistical row (claim.hpp, Equivalence): besides the rule that
// decides the row, two one-sided tests of agreement within a declared relative margin δ and the
// rule's minimum detectable error (estimators/statistics/decide.hpp (l), (m)). Every statistical
// row calls one of these, so that its verdict class says "equivalent" (agreement within δ
// confirmed at confidence 1 − α), "not rejected" or "fails" (claim.hpp, VerdictClass).
//
// Conventions: the TOST runs at the α of the rule it accompanies (the row's per-test α); the
// margin is δ·|scale| in the units of the measured quantity, `scale` the size of the predicted
// quantity it is relative to (named by each claim); the minimum detectable error is reported
// relative to the same scale, at power kPower. A row with several components is equivalent when
// every component is (intersection–union), and its MDE is the largest.
#pragma once

#include <cstdint>
#include <string>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/linalg.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::kit {

// Power at which the minimum detectable error is reported, per attempt. A statistical row is
// declared failed only when it fails at the run seed and again at an independent seed (claim.hpp,
// run_claim), so a true error is reported with probability p² when one attempt detects it with
// probability p: the MDE is the rule's at power √0.9 per attempt, i.e. the smallest relative
// error that makes the row FAIL with probability 0.9.
inline constexpr double kPower = 0.9486832980505138;  // √0.9

// Records one component: `confirmed` by the test described in `what`, with margin δ (0 for a
// one-sided confirmation), the relative MDE of the rule and the rule's relative allowance (the
// declared remainder it tolerates, part of its MDE that no sample removes: decide.hpp (m)), which
// the budget advice leaves out (estimators::stein_budget_multiple).
void add_equivalence(Row& row, double delta, bool confirmed, const std::string& what,
                     double relative_mde, double relative_allowance = 0);

// Scalar agreement of E[θ] with `predicted`: TOST of E[θ] ∈ [p − δ|scale|, p + δ|scale|] at
// rule.alpha; MDE of `rule` (a scalar rule of decide.hpp, (e)–(k)) over |scale|.
void agreement(Row& row, double delta, const std::string& what,
               const estimators::ReplicatedMean& estimate, double predicted, double scale,
               const estimators::Decision& rule);

// Vector agreement decided by Hotelling's T² over `replications` i.i.d. replications (their mean
// and its covariance; ν = replications − 1): TOST on every coordinate with margin δ|scale| at α;
// MDE of the Hotelling test in its least-resolved direction over |scale|.
void agreement(Row& row, double delta, const std::string& what,
               const estimators::ReplicatedMeanVector& estimate, std::int64_t replications,
               const Vector& predicted, double scale, double alpha);

// Vector agreement within an allowance, for estimates sharp enough to resolve a declared remainder
// (where a point null would reject a true theorem): the rule is decide.hpp (e) on every
// coordinate, |θ̂_i − p_i| ≤ δ|scale| + q·se_i, at α/d each (Bonferroni; Student's t with
// replications − 1 degrees of freedom), and the TOST confirms every coordinate within δ|scale|
// at α. Records the equivalence (MDE of the rule in its least-resolved coordinate over |scale|)
// and returns the rule's decision on the worst coordinate (largest statistic).
estimators::Decision agreement_within(Row& row, double delta, const std::string& what,
                                      const estimators::ReplicatedMeanVector& estimate,
                                      std::int64_t replications, const Vector& predicted,
                                      double scale, double alpha);

// One-sided claim that the rule itself CONFIRMS ("θ > s0", "E[high] > E[low]", a bound), so
// that passing is already a confirmation at the rule's α: the rule is its own one-sided
// equivalence test (margin 0). MDE of the rule over |scale|.
void confirmation(Row& row, const std::string& what, const estimators::Decision& rule,
                  double scale);

}  // namespace fedverify::claims::kit
