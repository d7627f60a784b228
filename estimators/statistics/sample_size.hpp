// Budgets that reach a verdict (issue 26 item 3): how many i.i.d. replications a statistical row
// needs so that its minimum detectable error is at most half its declared margin, chosen from a
// pilot by Stein's two-stage procedure (C. Stein, "A two-sample test for a linear hypothesis whose
// power is independent of the variance", Ann. Math. Statist. 16, 1945).
//
// Stage 1: n₀ pilot replications give s₀, the standard deviation of ONE replication, with
// ν = n₀ − 1 degrees of freedom. Stage 2: n replications in all (the pilot's included), where n
// is the least integer with
//     MDE(n) = (q_{1−α/2,ν} + q_{power,ν}) · s₀/√n  ≤  δ/2,                  decide.hpp (m)
// q_{p,ν} Student's t quantile. The row is then decided on the mean of the n replications with
// the PILOT's standard error s₀/√n and ν = n₀ − 1 degrees of freedom (stein_mean). Under
// normality that statistic is exactly Student's t_ν whatever n: x̄_n is N(θ, σ²/n) given s₀
// (the pilot's mean and s₀ are independent, the later replications independent of both, and n
// depends on s₀ alone), so every rule of decide.hpp keeps its α exactly — the sample size is
// data-dependent, the level is not. (Re-estimating the standard deviation from all n
// replications would make the level only approximately α.)
//
// Cost: a row cannot grow without bound. `budget` caps n (in replications, a deterministic unit —
// CPU seconds would make results depend on the machine and its load, and same seed ⇒ same
// result is a contract). When n exceeds the cap the plan says by how much ("needs ≈ 12× this
// budget") so a reader knows what would settle an inconclusive row.
//
// Why δ/2: the two one-sided tests (decide.hpp (l)) confirm agreement within ±δ when the
// confidence interval, of half-width ≈ q_{1−α,ν}·se, lies inside ±δ around the prediction; with
// MDE ≤ δ/2 the half-width is below δ/2, so a prediction that is right up to a remainder of size
// ≤ δ/2 is confirmed equivalent with probability ≥ power, while an error of δ/2 or more is
// detected with probability ≥ power.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/statistics/moments.hpp"

namespace fedverify::estimators {

struct SampleSizePlan {
  std::int64_t pilot = 0;    // n₀
  double pilot_sd = 0;       // s₀, per replication
  std::int64_t needed = 0;   // least n with MDE(n) ≤ δ/2 (≥ n₀)
  std::int64_t planned = 0;  // min(needed, budget), ≥ n₀
  std::int64_t budget = 0;   // the cap on n
  double planned_mde = 0;    // MDE(planned), in the units of the margin
  // needed / budget when the budget does not reach the target (> 1), else 0.
  double shortfall = 0;
  bool reaches() const { return needed <= budget; }
  // "" when the budget reaches the target, else e.g. "needs ≈ 12× this budget (4800 of 400
  // replications)".
  std::string advice() const;
};

// The plan for a row with relative margin `margin` (δ, in the units of s₀), at level α (two-sided
// rules; a one-sided rule passes alpha·2) and power 1 − β = `power`. Throws InputError naming the
// argument for n₀ < 2, s₀ < 0 or non-finite, δ ≤ 0, α ∉ (0, 1), power ∉ (0.5, 1), budget < n₀.
// s₀ = 0 plans n₀.
SampleSizePlan stein_sample_size(double pilot_sd, std::int64_t pilot, double margin, double alpha,
                                 double power, std::int64_t budget);

// The same from the pilot's replications themselves (s₀ their sample standard deviation).
SampleSizePlan stein_sample_size(const std::vector<double>& pilot_replications, double margin,
                                 double alpha, double power, std::int64_t budget);

// The same plan with a finished run as the pilot, in budget multiples. A rule's minimum detectable
// error (decide.hpp (m), at the row's α and power) is MDE = A + (c + q_power)·se: the allowance A
// of a rule that tolerates a declared remainder (agreement within a margin, (e) and (d)) does not
// shrink with the sample, only the second part falls like 1/√n at fixed ν. The row needs
// ((mde − A)/(δ/2))² times its budget for (c + q_power)·se ≤ δ/2 — Stein's stage-2 count divided
// by the pilot's: an error of A + δ/2 is then detected with that power (A = 0, a point null:
// MDE ≤ δ/2), and a prediction right to within δ/2 is confirmed within δ. (With A ≥ δ/2 the
// target "MDE ≤ δ/2" is unreachable at any sample: the old (mde/(δ/2))² advised 17× for rows of
// the (e) rule that the target cannot describe.) Returns 0 when the run already reaches it (or
// δ ≤ 0, or mde is not finite: nothing to advise). `allowance` is in the units of mde and δ.
double stein_budget_multiple(double mde, double margin, double allowance = 0);

// A budget multiple as it is shown: rounded up, to a whole number below 10 and to two
// significant digits from 10 on (≈ 47×, ≈ 270×: an estimate, not a count).
double rounded_budget_multiple(double multiple);

// "needs ≈ 12× this budget": the advice of a plan or of a budget multiple > 1, rounded as above
// ("" otherwise).
std::string budget_advice(double multiple);

// Stage 2's estimate: the mean of all `replications` (the pilot's first) with the pilot's
// standard error s₀/√n and dof n₀ − 1, ready for any scalar rule of decide.hpp (z_agreement,
// equivalence_test, …). Throws InputError unless replications.size() ≥ plan.pilot.
ReplicatedMean stein_mean(const SampleSizePlan& plan, const std::vector<double>& replications);

}  // namespace fedverify::estimators
