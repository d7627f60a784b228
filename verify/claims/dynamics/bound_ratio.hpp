// A finite-time curve E‖x_t − x*‖² against a finite-time bound (theory/closed_forms/bounds.hpp):
// the ratio E_t/bound(t) along the curve (the constant a case needs, where the bound is tight and
// where it is vacuous), and the decision of "E_t ≤ C·bound(t) for every t" for a given C. Used by
// dynamics.finite-time-bounds (THEORY (S5), (T3)).
//
// Horizon: the curve runs T rounds; beyond T the bound is at least its floor and E_t has converged
// (the claim chooses T so), so the tail contributes the point tail level/floor (MseCurve::tail).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "theory/closed_forms/bounds.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::dynamics {

// E‖x_t − x*‖² for t = 0 … rounds from x0: exact (THEORY (T1)) where the algorithm has an exact
// trajectory on the problem's kind (se empty), else the mean over `chains` simulated chains with
// its standard error per round. The tail level, compared with the bound's floor: E_T (exact), or
// the chains' time average over the last quarter of the rounds with its standard error across
// chains (simulated; while E_t still approaches E_∞ from above the average only overstates it).
struct MseCurve {
  std::vector<double> mse, se;
  bool exact = false;
  int chains = 0;
  double tail = 0, tail_se = 0;
};
MseCurve mse_curve(const Context& ctx, const theory::Problem& p, theory::Algorithm a,
                   const theory::RunSetting& step, const Vector& x0, const Vector& x_star,
                   int rounds, int chains, std::uint64_t seed);

// The ratio E_t/bound(t): its largest value (the smallest C the case needs) and where, its value
// at the tail (tail level/floor: the stationary level against the bound's floor) and its smallest
// value (how vacuous the bound gets), with a log-spaced subset of (t, ratio) for the figure.
struct BoundRatio {
  double sup = 0;
  std::string sup_at;  // "t = 12" or "tail"
  double tail = 0;
  double smallest = 0;
  std::vector<double> plot_rounds, plot_ratio;
};
BoundRatio bound_ratio(const MseCurve& curve, const theory::FiniteTimeBound& bound);

// "E_t ≤ C·bound(t) for every t" on the curve's points (rounds 1, 2, 4, … and every power of
// 2^{1/4} up to T, and the tail). Exact curve: refuted when some ratio exceeds C by more than
// round-off (1e-9 relative), else confirmed. Simulated: refuted when some point's one-sided test
// (decide.hpp (j), mean_at_most) rejects at α/m (Bonferroni over the m points); confirmed when
// every point's upper limit is below C·bound (decide.hpp (l), the [−∞, C·bound] half, at α:
// intersection–union); neither: not rejected, not confirmed.
struct BoundDecision {
  bool refuted = false;
  bool confirmed = false;
  double worst_z = 0;    // largest (E_t − C·bound)/se (simulated), or the largest ratio/C − 1
  double threshold = 0;  // the Bonferroni z (simulated), 1e-9 (exact)
  // Simulated: the largest se/(C·bound) over the points — with `threshold`, the smallest
  // relative excess E_t/(C·bound) − 1 the rule detects (decide.hpp (m)); 0 for exact curves.
  double relative_se = 0;
  int points = 0;
  std::string description;
};
BoundDecision bound_decision(const MseCurve& curve, const theory::FiniteTimeBound& bound, double c,
                             double alpha);

}  // namespace fedverify::claims::dynamics
