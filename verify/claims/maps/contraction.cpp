// Claim maps.contraction.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/closed_forms/exact.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/maps/maps.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::maps {
namespace {

constexpr const char* kId = "maps.contraction";

constexpr const char* kCard = R"(
Summary: Over (γL, H) FedAvg and Scaffold contract at (1 − γμ)^H inside the theorems' regions; the
  map shows where that ends.
Statement: Over (γL, H), the round maps of FedAvg and Scaffold contract at the claimed factor (1 −
  γμ)^H throughout the theorems' regions (FedAvg γL ≤ 1, Scaffold γHL ≤ 1); the map locates where
  that stops and where the chains diverge.
Formula: ρ(round map) ≤ (1 − γμ)^H  (FedAvg: γL ≤ 1; Scaffold on Σ_c ξ_c = 0: γHL ≤ 1)
THEORY: (F1), (S1), (F5), (S6)
Setting: the default quadratic problems q-small and q-gen5; FedAvg and Scaffold; γL on 30 log-spaced
  values in [1e-3, 10] (16 on the quick grid), H ∈ {1, 2, 5, 10, 20, 50, 100}. ρ is exact: the
  spectral radius of the round map (Scaffold's on its invariant subspace, as scaffold_exact computes
  it); μ = min_c λ_min(A_c), L = max_c λ_max(A_c).
Decision: exact ρ on a (γL, H) grid, classified as claimed (ρ ≤ (1 − γμ)^H + 1e-10), slower (ρ < 1)
  or divergent; every point of the theorem's region as claimed and the bisected end of the claimed
  rate (relative precision 1e-6) beyond it; boundaries beyond the theorem informational
Sample row:
  | q-small, scaffold, H = 10, theorem region γHL ≤ 1 | ρ ≤ (1 − γμ)^H at every point |
  8/8 points as claimed; max ρ/(1 − γμ)^H = 0.9968; claimed rate ends at γHL ≈ 3.404 | ✅ |
  | q-small, scaffold, H = 10, beyond the theorem (informational) | — (the theorem covers
  γHL ≤ 1 only) | claimed rate ends at γHL ≈ 3.404; divergent from γHL ≈ 20 | ✅ |
Notes: The bisections start from the grid's first change; the rows beyond the theorem are
  informational (they pass and say so).
)";

using theory::Algorithm;

// The theorem's region: γL ≤ 1 for FedAvg (THEORY F1), γHL ≤ 1 for Scaffold (THEORY S1).
double region_end_gamma(Algorithm a, double l, int h) {
  return a == Algorithm::fedavg ? 1.0 / l : 1.0 / (h * l);
}
const char* region_text(Algorithm a) { return a == Algorithm::fedavg ? "γL ≤ 1" : "γHL ≤ 1"; }

struct Line {  // one (problem, algorithm, H) of the map
  std::vector<double> gamma, radius, claimed;
  std::vector<RateClass> cls;
  Boundary claimed_end, divergence;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Line, gamma, radius, claimed, cls, claimed_end, divergence)

Line scan(const theory::QuadraticProblem& q, Algorithm a, int h, const std::vector<double>& gamma,
          const RateClaim& rate) {
  const double mu = q.strong_convexity(), l = q.smoothness();
  const auto class_at = [&](double g) {
    const theory::RunSetting s{g, h};
    return classify(round_radius(q, a, s), rate(s, mu, l));
  };
  Line line;
  line.gamma = gamma;
  std::vector<bool> slower, divergent;
  for (double g : gamma) {
    const theory::RunSetting s{g, h};
    line.radius.push_back(round_radius(q, a, s));
    line.claimed.push_back(rate(s, mu, l));
    line.cls.push_back(classify(line.radius.back(), line.claimed.back()));
    slower.push_back(line.cls.back() != RateClass::as_claimed);
    divergent.push_back(line.cls.back() == RateClass::divergent);
  }
  line.claimed_end =
      first_change(gamma, slower, [&](double g) { return class_at(g) != RateClass::as_claimed; });
  line.divergence =
      first_change(gamma, divergent, [&](double g) { return class_at(g) == RateClass::divergent; });
  return line;
}

}  // namespace

// The claim, with the rate it compares with as a parameter (maps.hpp).
ClaimResult contraction_map(const Context& ctx, const RateClaim& rate) {
  ClaimResult out;
  const int points = ctx.options.quick ? kGammaPointsQuick : kGammaPoints;
  const std::vector<double> gamma_l = log_grid(kGammaLLow, kGammaLHigh, points);
  // Scaffold's earliest rate failure over the map, for the summary's "breaks at".
  double earliest = std::numeric_limits<double>::infinity();
  std::string earliest_where;
  std::vector<std::string> scaffold_ends;
  // Every (problem, algorithm, H) line of the map, computed in parallel, read in order below.
  const auto& problems = default_quadratic_problems();
  const std::vector<Algorithm> algorithms = {Algorithm::fedavg, Algorithm::scaffold};
  const std::size_t per_problem = algorithms.size() * kLocalSteps.size();
  const std::vector<Line> lines =
      kit::spread_tasks<Line>(ctx, problems.size() * per_problem, [&](std::size_t i) {
        const auto& q = as_quadratic(problems[i / per_problem]);
        return scan(q, algorithms[i % per_problem / kLocalSteps.size()],
                    kLocalSteps[i % kLocalSteps.size()], step_sizes(gamma_l, q.smoothness()), rate);
      });
  std::size_t next = 0;
  for (const auto& np : problems) {
    const auto& q = as_quadratic(np);
    const double l = q.smoothness();
    const std::vector<double> gamma = step_sizes(gamma_l, l);
    for (Algorithm a : algorithms) {
      std::vector<double> z;
      std::vector<double> end_x, end_y, div_x, div_y;
      std::vector<std::string> ends;
      for (int h : kLocalSteps) {
        const Line& line = lines[next++];
        const double edge = region_end_gamma(a, l, h);
        const std::string base = fmt::format("{}, {}, H = {}", np.name, theory::to_string(a), h);
        for (RateClass c : line.cls) z.push_back(static_cast<double>(c));

        // Theorem's region: every grid point as claimed, and the bisected end beyond the region.
        Row row;
        row.setting = fmt::format("{}, theorem region {}", base, region_text(a));
        row.predicted = "ρ ≤ (1 − γμ)^H at every point";
        int in_region = 0, held = 0;
        double worst = 0;
        for (std::size_t i = 0; i < gamma.size(); ++i) {
          if (gamma[i] > edge * (1 + kBisectionPrecision)) continue;
          ++in_region;
          held += line.cls[i] == RateClass::as_claimed ? 1 : 0;
          if (line.claimed[i] > 0) worst = std::max(worst, line.radius[i] / line.claimed[i]);
        }
        const Boundary& e = line.claimed_end;
        const bool beyond = e.kind == Boundary::Kind::none ||
                            (e.found() && e.lower >= edge * (1 - kBisectionPrecision));
        row.passed = held == in_region && beyond;
        row.measured = fmt::format(
            "{}/{} points as claimed; max ρ/(1 − γμ)^H = {:.4g}; claimed rate ends at {}", held,
            in_region, worst, boundary_text(e, l, h, kGammaLHigh));
        row.data = {{"points", in_region},
                    {"as_claimed", held},
                    {"max_ratio", worst},
                    {"region_end_gamma", edge},
                    {"claimed_end_ghl", boundary_ghl(e, l, h)}};
        kit::gate_exact(row, "max_ratio", worst);
        out.rows.push_back(std::move(row));

        // Beyond the theorem: the boundaries, informational.
        Row info;
        info.setting = fmt::format("{}, beyond the theorem (informational)", base);
        info.predicted = fmt::format("— (the theorem covers {} only)", region_text(a));
        int reentries = 0;  // grid points back in a better class after a boundary
        for (std::size_t i = 1; i < line.cls.size(); ++i) {
          reentries += line.cls[i] < line.cls[i - 1] ? 1 : 0;
        }
        info.measured = fmt::format(
            "claimed rate ends at {}; divergent from {}{}", boundary_text(e, l, h, kGammaLHigh),
            boundary_text(line.divergence, l, h, kGammaLHigh),
            reentries ? fmt::format("; {} class re-entries", reentries) : "");
        info.passed = true;
        const double end_ghl = boundary_ghl(e, l, h);
        const double div_ghl = boundary_ghl(line.divergence, l, h);
        info.data = {{"gamma_l", gamma_l},        {"radius", line.radius},
                     {"claimed", line.claimed},   {"claimed_end_ghl", end_ghl},
                     {"divergence_ghl", div_ghl}, {"reentries", reentries},
                     {"beyond_theorem", true}};
        kit::gate(info, "claimed_end_ghl", end_ghl, kBoundaryGateRelative * end_ghl);
        kit::gate(info, "divergence_ghl", div_ghl, kBoundaryGateRelative * div_ghl);
        out.rows.push_back(std::move(info));

        if (e.found()) {
          end_x.push_back(e.gamma * l);
          end_y.push_back(h);
        }
        if (line.divergence.found()) {
          div_x.push_back(line.divergence.gamma * l);
          div_y.push_back(h);
        }
        if (a == Algorithm::scaffold) {
          ends.push_back(fmt::format("{:.3g} (H = {})", end_ghl, h));
          if (end_ghl < earliest) {
            earliest = end_ghl;
            earliest_where = fmt::format("{}, H = {}", np.name, h);
          }
        }
      }
      if (a == Algorithm::scaffold) {
        scaffold_ends.push_back(fmt::format("on {}: γHL ≈ {}", np.name, fmt::join(ends, ", ")));
      }
      if (ctx.figures && &np == &problems.front()) {
        PlotSpec p = map_plot(
            fmt::format("{} on {}: contraction against (1 − γμ)^H", theory::to_string(a), np.name),
            gamma_l, kLocalSteps, z, "", true);
        p.heatmap.classes = rate_class_names();
        p.series.push_back({"claimed rate ends (bisection)", end_x, end_y,
                            "linespoints lw 2 pt 7 lc rgb '#882255'"});
        if (!div_x.empty()) {
          p.series.push_back({"divergence starts (bisection)", div_x, div_y,
                              "linespoints lw 2 pt 5 lc rgb 'black'"});
        }
        const std::string name = theory::to_string(a);
        kit::add_figure(ctx, p, fmt::format("map-contraction-{}.svg", name),
                        fmt::format("{} on {}: each (γL, H) cell classified as contracting at the "
                                    "claimed (1 − γμ)^H, stable but slower, or divergent; lines: "
                                    "the bisected boundaries; dashed: γHL = 1.",
                                    name, np.name),
                        out);
      }
    }
  }
  out.note = fmt::format(
      "Scaffold's claimed rate (1 − γμ)^H fails at {}; γHL ≤ 1 is not a stability condition "
      "(Scaffold stays stable well beyond it) but beyond the rate boundary Scaffold contracts "
      "slower than claimed, and more slowly as γ grows. FedAvg keeps (1 − γμ)^H up to "
      "γ(L + μ) ≈ 2, for every H.",
      fmt::join(scaffold_ends, "; "));
  out.breaks_at = fmt::format("γHL ≈ {:.3g} on {} (Scaffold rate)", earliest, earliest_where);
  return out;
}

namespace {

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::maps, 1},
                    .card = kCard,
                    .alpha = 0,
                    .sweep = true,
                    .run = [](const Context& ctx) { return contraction_map(ctx, claimed_rate); }});

}  // namespace
}  // namespace fedverify::claims::maps
