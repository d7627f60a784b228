// Claim maps.td-stability.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "theory/algorithms/lsa_stability.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/maps/maps.hpp"
#include "verify/claims/problems/linear_sa_problems.hpp"

namespace fedverify::claims::maps {
namespace {

constexpr const char* kId = "maps.td-stability";

constexpr const char* kCard = R"(
Summary: On federated TD, FedAvg and Scaffold are mean-square stable in the symmetric theorems'
  step regions; the second moment diverges before the mean.
Statement: On federated TD(0) with linear features, FedAvg is mean-square stable (finite
  stationary second moment) for γL ≤ 1 and Scaffold for γHL ≤ 1 — the step conditions that (F1)
  and (S1) state for symmetric problems — for every H; beyond them, the map locates where the
  second moment and then the mean diverge.
Formula: mean-square stable ⇔ ρ(T) < 1, T(S) = M S Mᵀ + 𝒩(S) (the round's second-moment operator);
  mean stable ⇔ ρ(M) < 1; ρ(T) ≥ ρ(M)², so the first implies the second
THEORY: (L0), (L1), (F1), (S1)
Setting: td-garnet-small (verify/claims/problems/linear_sa_problems.hpp: td-garnet's generator with
  10 states, 3 features, N = 4 clients, kernel heterogeneity 10, ρ = 0.95, B = 1); FedAvg and
  Scaffold; γL on 30 log-spaced values in [1e-3, 10] (16 on the quick grid), H ∈ {1, 2, 5, 10, 20,
  50, 100}; L = max_k ‖A_k‖₂ (LinearSaProblem::smoothness). ρ(M) and ρ(T) are exact: dense
  eigenvalues of M and of T's matrix on the symmetric matrices (theory/algorithms/lsa_stability.hpp;
  Scaffold on Σ_c ξ_c = 0).
Decision: every grid point of the region (FedAvg γL ≤ 1, Scaffold γHL ≤ 1) mean-square stable
  (ρ(T) < 1 − ${round_off}) and the bisected end of mean-square stability (relative precision 1e-6)
  beyond the region's edge; the boundaries beyond the region are informational
Sample row:
  | td-garnet-small, scaffold, H = 10, region γHL ≤ 1 | ρ(T) < 1 at every point | 15/15 points
  mean-square stable; max ρ(T) = 0.9989; mean-square stability ends at γHL ≈ 22.85 (γL ≈ 2.285) |
  ✅ holds |
Notes: L is the per-sample bound max‖A_k‖, far above the mean field's |λ(Ā)|, so both regions are
  conservative here; the map's point is where they end and what ends first. With multiplicative
  noise the mean-only band (ρ(M) < 1 ≤ ρ(T)) is wide: the second moment diverges at 1.8–4.0×
  smaller steps than the mean (γL ≈ 2.1–5.4 against 8.4–9.6), more so as H grows. Checked against a brute-force Kronecker round (linear_sa_test.cpp,
  LinearSaStability: radii equal to 3e-15 relative).
)";

using theory::Algorithm;

// Round-off allowance on ρ(T) against 1: dense eigenvalues of T's matrix (backward error ≈
// m²·ε·‖T‖ for m = 78, ‖T‖ = O(1)) on maps whose Perron root is simple; the brute-force
// comparison measured 3e-15. 1e-10 leaves four orders of margin.
constexpr double kRadiusTolerance = 1e-10;

// The classes of a point, in palette order.
enum class StabilityClass { mean_square = 0, mean_only = 1, divergent = 2 };
const std::vector<std::string> kClassNames = {"mean-square stable", "mean stable only",
                                              "divergent"};

StabilityClass classify(const theory::LsaStability& s) {
  if (s.mean_square_radius < 1) return StabilityClass::mean_square;
  return s.mean_radius < 1 ? StabilityClass::mean_only : StabilityClass::divergent;
}

struct Line {  // one (algorithm, H) of the map
  std::vector<double> gamma, mean_radius, ms_radius;
  std::vector<StabilityClass> cls;
  Boundary ms_end, mean_end;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Line, gamma, mean_radius, ms_radius, cls, ms_end, mean_end)

Line scan(const theory::LinearSaProblem& p, Algorithm a, int h, const std::vector<double>& gamma) {
  const auto at = [&](double g) { return theory::lsa_stability(p, a, {g, h}); };
  Line line;
  line.gamma = gamma;
  std::vector<bool> not_ms, not_mean;
  for (double g : gamma) {
    const theory::LsaStability s = at(g);
    line.mean_radius.push_back(s.mean_radius);
    line.ms_radius.push_back(s.mean_square_radius);
    line.cls.push_back(classify(s));
    not_ms.push_back(!s.mean_square_stable());
    not_mean.push_back(!s.mean_stable());
  }
  line.ms_end = first_change(gamma, not_ms, [&](double g) { return !at(g).mean_square_stable(); });
  line.mean_end = first_change(gamma, not_mean, [&](double g) { return !at(g).mean_stable(); });
  return line;
}

double gamma_l_of(const Boundary& b, double l) {
  return b.found() ? b.gamma * l : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

ClaimResult td_stability_map(const Context& ctx, const StabilityRegion& region) {
  ClaimResult out;
  const auto& np = default_linear_sa_problems().garnet_td_small;
  const theory::LinearSaProblem& p = as_linear_sa(np);
  const double l = p.smoothness();
  const int points = ctx.options.quick ? kGammaPointsQuick : kGammaPoints;
  const std::vector<double> gamma_l = log_grid(kGammaLLow, kGammaLHigh, points);
  const std::vector<double> gamma = step_sizes(gamma_l, l);
  const std::vector<Algorithm> algorithms = {Algorithm::fedavg, Algorithm::scaffold};
  const std::vector<Line> lines =
      kit::spread_tasks<Line>(ctx, algorithms.size() * kLocalSteps.size(), [&](std::size_t i) {
        return scan(p, algorithms[i / kLocalSteps.size()], kLocalSteps[i % kLocalSteps.size()],
                    gamma);
      });
  double earliest = std::numeric_limits<double>::infinity();
  std::string earliest_where;
  double widest_band = 0;
  std::size_t next = 0;
  for (Algorithm a : algorithms) {
    std::vector<double> z, ms_x, ms_y, mean_x, mean_y;
    for (int h : kLocalSteps) {
      const Line& line = lines[next++];
      const double edge = region.edge(a, l, h);
      const std::string base = fmt::format("{}, {}, H = {}", np.name, theory::to_string(a), h);
      for (StabilityClass c : line.cls) z.push_back(static_cast<double>(c));

      Row row;
      row.setting = fmt::format("{}, region {}", base, region.text(a));
      row.predicted = "ρ(T) < 1 at every point";
      int in_region = 0, stable = 0;
      double worst = 0;
      for (std::size_t i = 0; i < gamma.size(); ++i) {
        if (gamma[i] > edge * (1 + kBisectionPrecision)) continue;
        ++in_region;
        stable += line.ms_radius[i] < 1 - kRadiusTolerance ? 1 : 0;
        worst = std::max(worst, line.ms_radius[i]);
      }
      const Boundary& e = line.ms_end;
      const bool beyond = e.kind == Boundary::Kind::none ||
                          (e.found() && e.lower >= edge * (1 - kBisectionPrecision));
      row.passed = stable == in_region && beyond;
      row.measured = fmt::format(
          "{}/{} points mean-square stable; max ρ(T) = {:.4g}; mean-square stability "
          "ends at {} ({})",
          stable, in_region, worst, boundary_text(e, l, h, kGammaLHigh),
          boundary_gamma_l_text(e, l, kGammaLHigh));
      row.data = {{"points", in_region},
                  {"mean_square_stable", stable},
                  {"max_ms_radius", worst},
                  {"region_end_gamma", edge},
                  {"ms_end_gamma_l", gamma_l_of(e, l)}};
      kit::gate_exact(row, "max_ms_radius", worst);
      out.rows.push_back(std::move(row));

      Row info;
      info.setting = fmt::format("{}, beyond the region (informational)", base);
      info.predicted = fmt::format("— (the theorem covers {} only)", region.text(a));
      const double ms_end = gamma_l_of(line.ms_end, l);
      const double mean_end = gamma_l_of(line.mean_end, l);
      const double band = mean_end / ms_end;  // NaN when either is off the grid
      info.measured = fmt::format(
          "mean-square stability ends at {}; the mean diverges from {}{}",
          boundary_gamma_l_text(line.ms_end, l, kGammaLHigh),
          boundary_gamma_l_text(line.mean_end, l, kGammaLHigh),
          std::isfinite(band) ? fmt::format(" ({:.3g}× the mean-square end)", band) : "");
      info.passed = true;
      info.data = {{"gamma_l", gamma_l},           {"mean_radius", line.mean_radius},
                   {"ms_radius", line.ms_radius},  {"ms_end_gamma_l", ms_end},
                   {"mean_end_gamma_l", mean_end}, {"beyond_theorem", true}};
      kit::gate(info, "ms_end_gamma_l", ms_end, kBoundaryGateRelative * ms_end);
      kit::gate(info, "mean_end_gamma_l", mean_end, kBoundaryGateRelative * mean_end);
      out.rows.push_back(std::move(info));

      if (line.ms_end.found()) {
        ms_x.push_back(ms_end);
        ms_y.push_back(h);
        if (ms_end < earliest) {
          earliest = ms_end;
          earliest_where = base;
        }
      }
      if (line.mean_end.found()) {
        mean_x.push_back(mean_end);
        mean_y.push_back(h);
      }
      if (std::isfinite(band)) widest_band = std::max(widest_band, band);
    }
    if (ctx.figures) {
      const std::string name = theory::to_string(a);
      PlotSpec plot =
          map_plot(fmt::format("{} on {}: mean and mean-square stability", name, np.name), gamma_l,
                   kLocalSteps, z, "", true);
      plot.heatmap.classes = kClassNames;
      plot.series.push_back({"mean-square stability ends (bisection)", ms_x, ms_y,
                             "linespoints lw 2 pt 7 lc rgb '#882255'"});
      plot.series.push_back({"the mean diverges (bisection)", mean_x, mean_y,
                             "linespoints lw 2 pt 5 lc rgb 'black'"});
      kit::add_figure(ctx, plot, fmt::format("map-td-stability-{}.svg", name),
                      fmt::format("{} on {} (federated TD, Ā not symmetric): each (γL, H) cell "
                                  "classified as mean-square stable, mean stable only (the "
                                  "second moment diverges) or divergent; lines: the bisected "
                                  "boundaries; dashed: γHL = 1.",
                                  name, np.name),
                      out);
    }
  }
  out.note = fmt::format(
      "L = {:.4g} (max_k ‖A_k‖₂). The mean converges up to {:.3g}× the step at which the second "
      "moment diverges (the multiplicative noise's band).",
      l, widest_band);
  out.breaks_at =
      fmt::format("γL ≈ {:.3g} on {} (mean-square stability)", earliest, earliest_where);
  return out;
}

const StabilityRegion& symmetric_stability_region() {
  static const StabilityRegion region{
      [](Algorithm a, double l, int h) { return a == Algorithm::fedavg ? 1.0 / l : 1.0 / (h * l); },
      [](Algorithm a) { return a == Algorithm::fedavg ? "γL ≤ 1" : "γHL ≤ 1"; }};
  return region;
}

namespace {

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::maps, 7},
                    .card = kCard,
                    .values = {{"round_off", kRadiusTolerance}},
                    .alpha = 0,
                    .sweep = true,
                    .run = [](const Context& ctx) {
                      return td_stability_map(ctx, symmetric_stability_region());
                    }});

}  // namespace
}  // namespace fedverify::claims::maps
