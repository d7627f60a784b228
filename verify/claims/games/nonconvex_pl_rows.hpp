// The rows of claim games.nonconvex-pl (THEORY M8), its setting declared once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "verify/claims/games/nonconvex_pl.hpp"

namespace fedverify::claims::games {

inline constexpr double kHeterogeneity = 0.5;
inline constexpr double kBoxHalfWidth = 3.0;
inline constexpr int kGrid = 13;
inline constexpr double kAlpha = 0.01;  // α₁ of the classification, start and rate rows
inline constexpr int kLocalSteps = 5;
inline constexpr std::array<double, 2> kRatios = {1.0, 4.0};  // α₂/α₁
inline constexpr int kStarts = 32;
inline constexpr int kStartRounds = 3000;
// The averaged excess Σ_{t<T}(‖∇Φ(θ_t)‖² − floor)/T is c/T + (the unconverged tail, ≤ ρ^{2T} of
// the sum, ρ ≈ 0.98 at the slowest limit point): its log–log slope over T ≥ 250 is −1 to
// within ρ^{500}/log 2 ≈ 1e-4; 0.01 leaves room for the fit's curvature.
inline constexpr double kRateTolerance = 0.01;

// A stationary point with the claim's classification and its timescale threshold.
struct ClassifiedPoint {
  theory::MinimaxPoint test;  // by the claim's second-order test
  double threshold = 0;       // ρ* (timescale_threshold of J̄(z*)); +∞: never stable
  bool stable_at(double ratio) const { return test.strict_local_minimax() && ratio > threshold; }
};
ClassifiedPoint classify(const theory::PlGame& game, const Vector& z,
                         const NonconvexPlFormulas& formulas);

Row count_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points);
Row stability_row(const theory::PlGame& game, const ClassifiedPoint& point);
Row random_start_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points,
                     double ratio, std::uint64_t seed);
Row offset_row(const theory::PlGame& game, const ClassifiedPoint& point,
               const NonconvexPlFormulas& formulas, int index);
Row exact_at_one_step_row(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points);
Row limit_point_conditions_row(const theory::PlGame& game,
                               const std::vector<ClassifiedPoint>& points,
                               const NonconvexPlFormulas& formulas);
std::vector<Row> rate_rows(const theory::PlGame& game, const std::vector<ClassifiedPoint>& points);
void add_trajectory_figure(const Context& ctx, const theory::PlGame& game,
                           const std::vector<ClassifiedPoint>& points, ClaimResult& out);

}  // namespace fedverify::claims::games
