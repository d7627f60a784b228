#include "verify/claims/games/nonconvex_pl_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <Eigen/SVD>

#include "estimators/statistics/regression.hpp"
#include "theory/base/rng.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/quadratic/common.hpp"

namespace fedverify::claims::games {
namespace {

constexpr double kMaxRatio = 1e3;      // the scan of timescale_threshold
constexpr double kStartOffset = 1e-3;  // Newton for a limit point starts at z* + this on each axis
constexpr double kConverged = 1e-6;    // a start has reached a limit point within this distance
constexpr std::array<double, 5> kAlphaGrid = {0.00125, 0.0025, 0.005, 0.01, 0.02};
constexpr std::array<double, 4> kRateRounds = {250, 500, 1000, 2000};

theory::GdaSetting setting(double alpha, double ratio, int local_steps = kLocalSteps) {
  return {alpha, alpha * ratio, local_steps};
}

Vector limit_point(const theory::PlGame& game, const theory::GdaSetting& s, const Vector& z) {
  return theory::fedgda_fixed_point(game, s, z + Vector::Constant(z.size(), kStartOffset));
}

std::string theta_label(const Vector& z) { return fmt::format("θ = ({:.2f}, {:.2f})", z(0), z(1)); }

std::string kind(const theory::MinimaxPoint& t) {
  if (t.local_nash()) return "local Nash";
  return t.strict_local_minimax() ? "minimax, not Nash" : "not minimax";
}

std::string threshold_text(double threshold) {
  return std::isfinite(threshold) ? fmt::format("{:.3g}", threshold) : "∞";
}

// ‖∇Φ(θ)‖², Φ(θ) = max_τ f̄(θ, τ).
double reduced_gradient_sq(const theory::PlGame& game, const Vector& z) {
  return theory::reduced_gradient(game, z.head(game.theta_dim())).squaredNorm();
}

}  // namespace

ClassifiedPoint classify(const theory::PlGame& game, const Vector& z,
                         const NonconvexPlFormulas& formulas) {
  return {formulas.second_order(game, z),
          theory::timescale_threshold(game.mean_jacobian(z), game.theta_dim(), kMaxRatio)};
}

Row count_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points) {
  int minimax = 0, nash = 0;
  double residual = 0;
  for (const auto& pt : points) {
    minimax += pt.test.strict_local_minimax() ? 1 : 0;
    nash += pt.test.local_nash() ? 1 : 0;
    residual = std::max(residual, pt.test.residual / (1.0 + pt.test.z.norm()));
  }
  const int bezout = static_cast<int>(std::pow(3, game.theta_dim()));
  Row row;
  row.setting = "stationary points of f̄ (roots of ∇Φ)";
  row.predicted = fmt::format("at most 3^p = {} (Bézout), each ‖F̄(z)‖ ≤ 1e-12", bezout);
  row.measured = fmt::format(
      "{} found: {} strict local minimax ({} local Nash), {} not; max "
      "relative ‖F̄‖ {:.1e}",
      points.size(), minimax, nash, points.size() - minimax, residual);
  row.passed = !points.empty() && static_cast<int>(points.size()) <= bezout && residual <= 1e-12;
  row.data = {
      {"points", points.size()}, {"minimax", minimax}, {"nash", nash}, {"residual", residual}};
  kit::gate(row, "points", static_cast<double>(points.size()), 0.5);
  return row;
}

Row stability_row(const theory::PlGame& game, const ClassifiedPoint& pt) {
  // Jin et al.: a finite threshold (stable for every large enough ratio) ⇔ strict local minimax.
  const bool jin = std::isfinite(pt.threshold) == pt.test.strict_local_minimax();
  Row row;
  row.setting =
      fmt::format("{}: {} (λ_min S = {:.3f}, λ_min ∇²_θθ f̄ = {:.3f})", theta_label(pt.test.z),
                  kind(pt.test), pt.test.schur_min, pt.test.theta_curvature);
  std::string predicted = fmt::format("ρ* = {}:", threshold_text(pt.threshold));
  std::string measured = jin ? "" : "ρ* finite ≠ minimax; ";
  bool agree = jin;
  nlohmann::json radii = nlohmann::json::array();
  for (double ratio : kRatios) {
    const theory::GdaSetting s = setting(kAlpha, ratio);
    const Vector z_f = limit_point(game, s, pt.test.z);
    const double radius = theory::fedgda_round_spectral_radius(game, s, z_f);
    const bool stable = radius < 1.0;
    agree = agree && stable == pt.stable_at(ratio);
    predicted += fmt::format(" {} at {:g}", pt.stable_at(ratio) ? "stable" : "unstable", ratio);
    measured += fmt::format("{}ρ(DΨ) = {:.4f} at {:g}", radii.empty() ? "" : ", ", radius, ratio);
    radii.push_back(radius);
    kit::gate_exact(row, fmt::format("spectral_radius_{:g}", ratio), radius);
  }
  row.predicted = predicted;
  row.measured = measured;
  row.passed = agree;
  row.data["threshold"] =
      std::isfinite(pt.threshold) ? nlohmann::json(pt.threshold) : nlohmann::json("inf");
  row.data["spectral_radius"] = radii;
  row.data["schur_min"] = pt.test.schur_min;
  row.data["theta_curvature"] = pt.test.theta_curvature;
  row.data["tau_curvature"] = pt.test.tau_curvature;
  return row;
}

Row random_start_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points,
                     double ratio, std::uint64_t seed) {
  const theory::GdaSetting s = setting(kAlpha, ratio);
  std::vector<Vector> limits;
  limits.reserve(points.size());
  for (const auto& pt : points) limits.push_back(limit_point(game, s, pt.test.z));
  std::vector<int> hits(points.size(), 0);
  int converged_stable = 0, elsewhere = 0;
  for (int k = 0; k < kStarts; ++k) {
    estimators::Stream stream(seed, estimators::Purpose::initial_state, static_cast<unsigned>(k));
    Vector z(game.dim());
    for (Eigen::Index j = 0; j < z.size(); ++j) z(j) = -2.0 + 4.0 * stream.uniform();
    for (int t = 0; t < kStartRounds; ++t) {
      Vector next = theory::fedgda_round(game, s, z, false).z;
      const bool still = (next - z).norm() <= 1e-14 * (1.0 + z.norm());
      z = std::move(next);
      if (still || !z.allFinite()) break;
    }
    std::size_t nearest = 0;
    for (std::size_t i = 1; i < limits.size(); ++i)
      if ((limits[i] - z).norm() < (limits[nearest] - z).norm()) nearest = i;
    if (z.allFinite() && (limits[nearest] - z).norm() <= kConverged) {
      ++hits[nearest];
      converged_stable += points[nearest].stable_at(ratio) ? 1 : 0;
      elsewhere += points[nearest].stable_at(ratio) ? 0 : 1;
    }
  }
  std::string where;
  int predicted_stable = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    predicted_stable += points[i].stable_at(ratio) ? 1 : 0;
    if (hits[i] > 0) {
      where += fmt::format("{}{} ({}): {}", where.empty() ? "" : "; ",
                           theta_label(points[i].test.z), kind(points[i].test), hits[i]);
    }
  }
  Row row;
  row.setting =
      fmt::format("{} random starts, α₂/α₁ = {:g}, {} rounds", kStarts, ratio, kStartRounds);
  row.predicted = fmt::format("all at the {} predicted-stable limit points", predicted_stable);
  row.measured =
      fmt::format("{}/{} there, {} at other points, {} not converged — {}", converged_stable,
                  kStarts, elsewhere, kStarts - converged_stable - elsewhere, where);
  row.passed = converged_stable == kStarts;
  row.data = {{"converged_stable", converged_stable}, {"elsewhere", elsewhere}, {"hits", hits}};
  kit::gate(row, "converged_stable", converged_stable, 0.5);
  return row;
}

Row offset_row(const theory::PlGame& game, const ClassifiedPoint& pt,
               const NonconvexPlFormulas& formulas, int index) {
  std::vector<double> alpha, remainder;
  for (double a : kAlphaGrid) {
    const theory::GdaSetting s = setting(a, kRatios[1]);
    const Vector z_f = limit_point(game, s, pt.test.z);
    alpha.push_back(a);
    remainder.push_back((z_f - pt.test.z - formulas.first_order(game, s, pt.test.z)).norm());
  }
  return optimisers::remainder_order_row(
      fmt::format("minimax point #{} {}, α₂/α₁ = {:g}, R = {}, (M2) remainder", index,
                  theta_label(pt.test.z), kRatios[1], kLocalSteps),
      alpha, remainder);
}

Row exact_at_one_step_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points) {
  double worst = 0, bound = std::numeric_limits<double>::infinity();
  for (const auto& pt : points) {
    const theory::GdaSetting s = setting(kAlpha, kRatios[1], 1);
    const Vector z_f = limit_point(game, s, pt.test.z);
    // Newton's error: the round's evaluation error (≈ R ε ‖z‖) times ‖(I − DΨ)⁻¹‖₂, with the
    // claims' ulps factor.
    const Matrix j = theory::fedgda_round(game, s, z_f, true).jacobian;
    const Vector sv =
        Eigen::JacobiSVD<Matrix>(Matrix::Identity(j.rows(), j.cols()) - j).singularValues();
    worst = std::max(worst, (z_f - pt.test.z).norm());
    bound = std::min(bound, quadratic::kRoundOffUlps * s.local_steps *
                                std::numeric_limits<double>::epsilon() *
                                std::max(1.0, pt.test.z.norm()) / sv(sv.size() - 1));
  }
  Row row;
  row.setting = fmt::format("every stationary point, R = 1, α₂/α₁ = {:g}", kRatios[1]);
  row.predicted = fmt::format("z_F = z* (≤ {:.1e})", bound);
  row.measured = fmt::format("max ‖z_F − z*‖ = {:.2e}", worst);
  row.passed = worst <= bound;
  row.data = {{"offset", worst}, {"round_off", bound}};
  kit::gate(row, "offset", worst, bound);
  return row;
}

Row limit_point_conditions_row(const theory::PlGame& game,
                               const std::vector<ClassifiedPoint>& points,
                               const NonconvexPlFormulas& formulas) {
  const theory::GdaSetting s = setting(kAlpha, kRatios[1]);
  double schur = std::numeric_limits<double>::infinity(), tau = -schur, residual = schur;
  int limits = 0;
  for (const auto& pt : points) {
    if (!pt.stable_at(kRatios[1])) continue;
    const theory::MinimaxPoint at = formulas.second_order(game, limit_point(game, s, pt.test.z));
    schur = std::min(schur, at.schur_min);
    tau = std::max(tau, at.tau_curvature);
    residual = std::min(residual, at.residual);
    ++limits;
  }
  const double round_off = 1e-12;
  Row row;
  row.setting = fmt::format("FedGDA's {} limit points, α₁ = {}, α₂/α₁ = {:g}, R = {}", limits,
                            kAlpha, kRatios[1], kLocalSteps);
  row.predicted = "second-order conditions hold (S ≻ 0, ∇²_ττ f̄ ≺ 0); first-order fails (F̄ ≠ 0)";
  row.measured = fmt::format(
      "min λ_min S = {:.3f}, max λ_max ∇²_ττ = {:.3f}; min ‖F̄(z_F)‖ = "
      "{:.2e}",
      schur, tau, residual);
  row.passed = limits > 0 && schur > 0 && tau < 0 && residual > 1e6 * round_off;
  row.data = {{"schur_min", schur}, {"tau_curvature", tau}, {"residual", residual}};
  kit::gate_exact(row, "residual", residual);
  return row;
}

std::vector<Row> rate_rows(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points) {
  // The slowest attracting point: a minimax point that is not a Nash point (largest ρ*).
  const ClassifiedPoint* target = nullptr;
  for (const auto& pt : points) {
    if (pt.stable_at(kRatios[1]) && (!target || pt.threshold > target->threshold)) target = &pt;
  }
  std::vector<Row> rows;
  if (!target) return rows;
  const theory::GdaSetting s = setting(kAlpha, kRatios[1]);
  const Vector z_f = limit_point(game, s, target->test.z);
  const double floor = reduced_gradient_sq(game, z_f);
  // From θ₀ = θ_F + (0.5, 0.5), τ₀ = 0.
  Vector z = Vector::Zero(game.dim());
  z.head(game.theta_dim()) = z_f.head(game.theta_dim()).array() + 0.5;
  std::vector<double> rounds, excess;
  double sum = 0;
  for (int t = 0; t < static_cast<int>(kRateRounds.back()); ++t) {
    sum += reduced_gradient_sq(game, z) - floor;
    z = theory::fedgda_round(game, s, z, false).z;
    if (std::find(kRateRounds.begin(), kRateRounds.end(), t + 1.0) != kRateRounds.end()) {
      rounds.push_back(t + 1.0);
      excess.push_back(sum / (t + 1.0));
    }
  }
  const bool ended_there = (z - z_f).norm() <= kConverged;
  const auto fit = estimators::fit_log_log_slope(rounds, excess, quadratic::kSlopeAlpha);
  Row rate;
  rate.setting = fmt::format("from θ_F + (½, ½) to {} ({}), (1/T) Σ_t (‖∇Φ(θ_t)‖² − floor)",
                             theta_label(target->test.z), kind(target->test));
  rate.predicted =
      fmt::format("O(1/T): slope −1 ± {} (Sharma et al., non-convex–PL)", kRateTolerance);
  rate.measured = fmt::format("{:.4f} [{:.4f}, {:.4f}]{}", fit.slope, fit.lower, fit.upper,
                              ended_there ? "" : " (did not reach z_F)");
  rate.passed = ended_there && std::abs(fit.slope + 1.0) <= kRateTolerance;
  rate.data = {{"rounds", rounds}, {"excess", excess}, {"slope", fit.slope}, {"floor", floor}};
  kit::gate(rate, "slope", fit.slope, std::max(0.5 * (fit.upper - fit.lower), 1e-3));
  rows.push_back(std::move(rate));
  std::vector<double> alpha, floors;
  for (double a : kAlphaGrid) {
    alpha.push_back(a);
    floors.push_back(
        reduced_gradient_sq(game, limit_point(game, setting(a, kRatios[1]), target->test.z)));
  }
  rows.push_back(optimisers::remainder_order_row(
      fmt::format("floor ‖∇Φ(θ_F)‖² at {}, R = {} (order α²(R − 1)²)", theta_label(target->test.z),
                  kLocalSteps),
      alpha, floors));
  return rows;
}

void add_trajectory_figure(const Context& ctx, const theory::PlGame& game,
                           const std::vector<ClassifiedPoint>& points, ClaimResult& out) {
  const theory::GdaSetting s = setting(kAlpha, kRatios[1]);
  PlotSpec plot{
      fmt::format("FedGDA paths in the θ plane (α₂/α₁ = {:g}, R = {})", kRatios[1], kLocalSteps),
      "θ₁",
      "θ₂",
      false,
      false,
      true,
      {}};
  estimators::Stream stream(kit::row_seed(ctx, "games.nonconvex-pl", "figure"),
                            estimators::Purpose::initial_state);
  for (int k = 0; k < 12; ++k) {
    Vector z(game.dim());
    for (Eigen::Index j = 0; j < z.size(); ++j) z(j) = -2.0 + 4.0 * stream.uniform();
    std::vector<double> xs, ys;
    for (int t = 0; t <= 600; ++t) {
      if (t % 5 == 0) {
        xs.push_back(z(0));
        ys.push_back(z(1));
      }
      z = theory::fedgda_round(game, s, z, false).z;
    }
    plot.series.push_back({k == 0 ? "paths" : "", xs, ys, "lines lw 1"});
  }
  for (const std::string which : {"local Nash", "minimax, not Nash", "not minimax"}) {
    std::vector<double> xs, ys;
    for (const auto& pt : points) {
      if (kind(pt.test) != which) continue;
      xs.push_back(pt.test.z(0));
      ys.push_back(pt.test.z(1));
    }
    plot.series.push_back(
        {which, xs, ys, which == "not minimax" ? "points pt 6 ps 1.5" : "points pt 7 ps 1.5"});
  }
  kit::add_figure(ctx, std::move(plot), "nonconvex_pl_paths.svg",
                  "FedGDA from 12 random starts on the non-convex–PL game: every path ends at a "
                  "strict local minimax point (filled), none at the other stationary points "
                  "(open circles)",
                  out);
}

}  // namespace fedverify::claims::games
