#include "verify/claims/dynamics/bound_ratio.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "estimators/statistics/moments.hpp"
#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/closed_forms/trajectory.hpp"
#include "verify/claims/dynamics/common.hpp"
#include "verify/claims/kit/kit.hpp"

namespace fedverify::claims::dynamics {
namespace {

// Round-off of an exact curve against the bound: the moment recursion's relative error stays far
// below 1e-9 over the claim's horizons (theory/closed_forms/trajectory_test.cpp: ≤ 1e-12 at 30
// rounds against symbolic replays, ≤ 1e-10 at the stationary limit).
constexpr double kExactRoundOff = 1e-9;

// The rounds compared: 1, 2, 3, 4, 5, 6, 8, … (every power of 2^{1/4}, rounded, deduplicated) up to
// the horizon; the tail is added by the callers.
std::vector<int> compared_rounds(int horizon) {
  std::vector<int> out;
  for (double r = 1; r <= horizon; r *= std::pow(2.0, 0.25)) {
    const int t = static_cast<int>(std::lround(r));
    if (out.empty() || t != out.back()) out.push_back(t);
  }
  if (out.empty() || out.back() != horizon) out.push_back(horizon);
  return out;
}

}  // namespace

MseCurve mse_curve(const Context& ctx, const theory::Problem& p, theory::Algorithm a,
                   const theory::RunSetting& step, const Vector& x0, const Vector& x_star,
                   int rounds, int chains, std::uint64_t seed) {
  MseCurve out;
  const theory::AlgorithmTheory* formulas = theory::find_algorithm_theory(a);
  const std::optional<theory::TrajectoryMoments> exact =
      formulas != nullptr ? formulas->exact_trajectory(p, step, x0, rounds) : std::nullopt;
  if (exact) {
    out.mse = theory::mean_square_error(*exact, x_star);  // THEORY (T1)
    out.exact = true;
    out.tail = out.mse.back();
    return out;
  }
  const Trajectory tr = simulate_trajectory(ctx, p, a, step, x0, x_star, chains, rounds, seed,
                                            kit::round_by_round_threads(ctx), rounds - rounds / 4);
  out.mse = tr.mse;
  out.se = tr.mse_se;
  out.chains = chains;
  out.tail = tr.tail_mean;
  out.tail_se = tr.tail_se;
  return out;
}

BoundRatio bound_ratio(const MseCurve& curve, const theory::FiniteTimeBound& bound) {
  BoundRatio out;
  out.smallest = std::numeric_limits<double>::infinity();
  const int horizon = static_cast<int>(curve.mse.size()) - 1;
  for (int t = 0; t <= horizon; ++t) {
    const double r = curve.mse[t] / bound.at(t);
    if (r > out.sup) {
      out.sup = r;
      out.sup_at = fmt::format("t = {}", t);
    }
    out.smallest = std::min(out.smallest, r);
  }
  out.tail = curve.tail / bound.stationary;
  if (out.tail > out.sup) {
    out.sup = out.tail;
    out.sup_at = "tail";
  }
  out.plot_rounds.push_back(0);
  out.plot_ratio.push_back(curve.mse[0] / bound.at(0));
  for (int t : compared_rounds(horizon)) {
    out.plot_rounds.push_back(t);
    out.plot_ratio.push_back(curve.mse[t] / bound.at(t));
  }
  return out;
}

BoundDecision bound_decision(const MseCurve& curve, const theory::FiniteTimeBound& bound, double c,
                             double alpha) {
  BoundDecision out;
  const int horizon = static_cast<int>(curve.mse.size()) - 1;
  std::vector<int> rounds = compared_rounds(horizon);
  // The points: every compared round against C·bound(t), and the tail, E_T against C·floor.
  struct Point {
    double value, se, limit;
  };
  std::vector<Point> points;
  points.reserve(rounds.size() + 1);
  for (int t : rounds) {
    points.push_back({curve.mse[t], curve.exact ? 0.0 : curve.se[t], c * bound.at(t)});
  }
  points.push_back({curve.tail, curve.tail_se, c * bound.stationary});
  out.points = static_cast<int>(points.size());
  if (curve.exact) {
    out.worst_z = -std::numeric_limits<double>::infinity();
    for (const Point& p : points) out.worst_z = std::max(out.worst_z, p.value / p.limit - 1.0);
    out.threshold = kExactRoundOff;
    out.refuted = out.worst_z > kExactRoundOff;
    out.confirmed = !out.refuted;
    out.description = fmt::format("exact curve: largest E_t/(C·bound) − 1 = {:.3g} over {} points",
                                  out.worst_z, out.points);
    return out;
  }
  const double per_point = alpha / static_cast<double>(points.size());
  out.worst_z = -std::numeric_limits<double>::infinity();
  bool all_confirmed = true;
  for (const Point& p : points) {
    const estimators::ReplicatedMean m{p.value, p.se, 0.0};
    const estimators::Decision reject = estimators::mean_at_most(m, p.limit, per_point);
    out.threshold = reject.threshold;
    out.worst_z = std::max(out.worst_z, reject.statistic);
    out.relative_se = std::max(out.relative_se, p.se / p.limit);
    out.refuted = out.refuted || !reject.passed;
    const estimators::Decision confirm =
        estimators::equivalence_test(m, -std::numeric_limits<double>::infinity(), p.limit, alpha);
    all_confirmed = all_confirmed && confirm.passed;
  }
  out.confirmed = !out.refuted && all_confirmed;
  out.description = fmt::format(
      "{} chains: largest (E_t − C·bound)/se = {:.2f} over {} points (refutes above {:.2f}, "
      "Bonferroni at α = {:.3g}); every upper limit below C·bound: {}",
      curve.chains, out.worst_z, out.points, out.threshold, alpha, all_confirmed ? "yes" : "no");
  return out;
}

}  // namespace fedverify::claims::dynamics
