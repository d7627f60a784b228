// Shared by the validity maps (verify/claims/maps/): where, in (γ, H), each theorem about the
// quadratic chains stops holding. Everything is exact — spectral radii of the round maps and
// stationary moments from the Lyapunov equation (theory/closed_forms/exact.hpp) — so a map has
// no Monte Carlo error; its only numerical errors are round-off and the stated bisection
// precision of its boundaries.
//
// Numerical strategy: a map is a grid scan (every point classified or measured), then, for each
// H, the first change along the γ grid is refined by bisection between the two grid points that
// bracket it. A boundary is therefore always consistent with the grid below it; the claims check
// it by re-evaluating just below and just above it, off the grid.
#pragma once

#include "verify/claims/kit/kit.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::maps {

// The (γL, H) grid of the maps (contraction, first-order accuracy): γL on kGammaPoints log-spaced
// values over [1e-3, 10] (kGammaPointsQuick on the quick grid), from deep inside the theorems'
// region to beyond every divergence; H from 1 to 100.
inline constexpr double kGammaLLow = 1e-3;
inline constexpr double kGammaLHigh = 10.0;
inline constexpr int kGammaPoints = 30;
inline constexpr int kGammaPointsQuick = 16;
inline const std::vector<int> kLocalSteps = {1, 2, 5, 10, 20, 50, 100};

// Relative precision in γ of every boundary found by bisection: the bracket [lo, hi] is halved
// until hi − lo ≤ kBisectionPrecision · hi. 1e-6 is far below anything a map is read for (two
// significant digits) and costs ≈ 20 evaluations per boundary from a grid bracket.
inline constexpr double kBisectionPrecision = 1e-6;

// A boundary moves by at most its bracket between two runs of different code (the bisection
// makes the same decisions unless round-off flips a comparison at the last step); gated with
// twice that.
inline constexpr double kBoundaryGateRelative = 2.0 * kBisectionPrecision;

// Round-off allowance on a spectral radius compared with a claimed rate. The radius comes from a
// QR eigenvalue solver (backward error ≲ n·ε·‖F‖ with ‖F‖ = O(1) here) on maps whose eigenvalues
// are well separated or, where they coincide with the claimed rate, sit in a block-triangular
// (non-defective) corner — e.g. Scaffold with identical client Hessians, whose x block is exactly
// (I − γA)^H. Measured forward errors stay below 1e-13; 1e-10 leaves three orders of margin and
// is still far below every gap that separates the classes on the grids (≥ 1e-6).
inline constexpr double kRadiusRoundOff = 1e-10;

// The claimed contraction factor and its type (verify/claims/kit/kit.hpp).
using kit::claimed_rate;
using RateClaim = kit::RateClaim;

// n values geometric in [lo, hi] (n ≥ 2), increasing.
std::vector<double> log_grid(double lo, double hi, int n);

// The step sizes γ = γL / L of a grid of γL, on a problem of smoothness L = `smoothness`.
std::vector<double> step_sizes(const std::vector<double>& gamma_l, double smoothness);

// Spectral radius of the algorithm's round map on a quadratic: FedAvg's M (symmetric, THEORY
// F5) or Scaffold's stacked map on Σ_c ξ_c = 0 (THEORY S6), also when it is ≥ 1.
double round_radius(const theory::QuadraticProblem& q, theory::Algorithm algorithm,
                    const theory::RunSetting& step);

// The three classes of a contraction map.
enum class RateClass { as_claimed = 0, slower = 1, divergent = 2 };
RateClass classify(double radius, double claimed);
std::vector<std::string> rate_class_names();  // in RateClass order, for the figure's palette

// The first γ along an increasing grid at which `flag` becomes true, refined by bisection.
struct Boundary {
  enum class Kind { none, below_grid, found } kind = Kind::none;
  double gamma = 0;  // found: the bisected γ (true at gamma, false at lower); below_grid: grid[0]
  double lower = 0;  // found: the last γ at which flag was false
  std::size_t grid_index = 0;  // found: index of the first grid point at which flag is true
  bool found() const { return kind == Kind::found; }
};
// A boundary as a task's value (kit::spread_tasks).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Boundary, kind, gamma, lower, grid_index)
// `flags[i]` is flag(grid[i]), already computed by the scan.
Boundary first_change(const std::vector<double>& grid, const std::vector<bool>& flags,
                      const std::function<bool(double)>& flag);

// "γHL ≈ 3.12" or "none for γL ≤ 10" or "≤ γHL 0.001 (below the grid)", for rows.
std::string boundary_text(const Boundary& b, double l, int h, double grid_end_gamma_l);
// The same in γL ("γL ≈ 2.13"), for maps whose boundaries do not scale with H.
std::string boundary_gamma_l_text(const Boundary& b, double l, double grid_end_gamma_l);
// The boundary in γHL (NaN when none).
double boundary_ghl(const Boundary& b, double l, int h);

// A heat-map figure over (γL, H) with log axes; z[j * gamma_l.size() + i] at (gamma_l[i],
// hs[j]). The theorem's region edge γHL = 1 is drawn as a dashed line when `ghl_line`.
PlotSpec map_plot(std::string title, const std::vector<double>& gamma_l, const std::vector<int>& hs,
                  std::vector<double> z, std::string zlabel, bool ghl_line);

}  // namespace fedverify::claims::maps
