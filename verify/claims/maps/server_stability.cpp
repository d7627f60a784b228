// Claim maps.server-stability (THEORY O2, stability as a map).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "theory/algorithms/fedopt.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/maps/maps.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::maps {
namespace {

constexpr const char* kId = "maps.server-stability";

constexpr const char* kCard = R"(
Summary: FedOpt with server momentum is stable exactly below the closed-form limit in (η_g, β).
Statement: Over the server step η_g and the server momentum β, FedOpt with full participation is
  stable exactly below the closed-form limit of optimisers.server-stability, at every γHL; the map
  locates the stable region of heavy ball and Nesterov and where it ends.
Formula: heavy ball γη_g d_max < 2(1 + β); Nesterov γη_g d_max < 2(1 + β)/(1 + 2β);
  d_max = λ_max((1/N) Σ_c P_c A_c) (→ H·L as γ → 0, smaller at larger γHL)
THEORY: (O2)
Setting: the default quadratic problems q-small and q-gen5; --algo fedopt, client sgd, H = ${h},
  γHL ∈ {${ghl}}; heavy ball and Nesterov; β on ${betas_quick} values in [0, 0.99] (${betas} on the
  full grid), η_g on ${points_quick} log-spaced values in [${eta_low}, ${eta_high}] (${points} on the full
  grid). ρ is exact: the spectral radius of the round map on (x, m) (theory/algorithms/fedopt.hpp).
Decision: every grid point classified stable (ρ < 1) or divergent (ρ ≥ 1) on the side of the limit
  the formula puts it (points within ${precision} of the limit excepted), and the bisected first
  divergent η_g (relative precision ${precision}) within ${bisection_match} of the limit, for
  every β of each (problem, γHL, form) line
Sample row:
  | q-gen5, H = 5, γHL = 1, Nesterov | stable iff γη_g d_max < 2(1 + β)/(1 + 2β) | 96/96 grid points
  on the predicted side; max |bisected/limit − 1| = 8.4e-07; η_g limit 2.33–3.5 | ✅ |
Notes: The limit is the theory function the claim optimisers.server-stability checks just below
  and above it at one γL (theory::fedopt_server_step_limit); the map covers it over (η_g, β) at
  several γHL. The figures show the q-gen5 map at γHL = 1 with the bisected boundaries of every
  γHL; "breaks at" gives the smallest stable-region end over the map.
)";

constexpr int kH = 5;
const std::vector<double> kGammaHL = {0.25, 1.0, 4.0};
constexpr double kEtaLow = 0.1, kEtaHigh = 100.0;
constexpr int kEtaPoints = 30, kEtaPointsQuick = 16;
// The bisected boundary lies within one bracket (kBisectionPrecision relative) of the true one;
// the round-off of ρ near 1 (≤ kRadiusRoundOff) moves it by ≲ kRadiusRoundOff/|dρ/dη_g| relative,
// far less. Twice the bracket.
constexpr double kBisectionMatch = 2.0 * kBisectionPrecision;

std::vector<double> momenta(bool quick) {
  if (quick) return {0.0, 0.25, 0.5, 0.75, 0.9, 0.99};
  std::vector<double> b;
  for (int i = 0; i <= 19; ++i) b.push_back(0.05 * i);
  b.push_back(0.99);
  return b;
}

struct Line {  // one (problem, γHL, form, β) of the map
  std::vector<double> radius;
  double limit = 0;
  Boundary divergence;
  int checked = 0, agreeing = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Line, radius, limit, divergence, checked, agreeing)

Line scan(const theory::QuadraticProblem& q, double gamma, double beta, bool nesterov,
          const std::vector<double>& eta, const optimisers::ServerStepLimit& limit) {
  const auto setting = [&](double e) {
    return optimisers::fedopt_setting(gamma, kH, optimisers::server_sgd_option(e, beta, nesterov));
  };
  const auto divergent = [&](double e) {
    return !(optimisers::server_round_radius(q, setting(e)) < 1.0);  // NaN: divergent
  };
  Line line;
  line.limit = limit(q, setting(1.0));
  std::vector<bool> flags;
  for (double e : eta) {
    line.radius.push_back(optimisers::server_round_radius(q, setting(e)));
    flags.push_back(!(line.radius.back() < 1.0));
    if (std::abs(e / line.limit - 1.0) <= kBisectionPrecision) continue;  // on the boundary
    ++line.checked;
    line.agreeing += flags.back() == (e > line.limit) ? 1 : 0;
  }
  line.divergence = first_change(eta, flags, divergent);
  return line;
}

const char* form_name(bool nesterov) { return nesterov ? "Nesterov" : "heavy ball"; }

// The γHL of the figures' classes, and one colour per γHL for the boundaries.
constexpr double kFigureGammaHL = 1.0;
const char* colour(double ghl) {
  // Dark enough to show over the light class colours of the map (figures.cpp).
  return ghl == kGammaHL[0] ? "#882255" : ghl == kGammaHL[1] ? "black" : "#117733";
}

}  // namespace

ClaimResult server_stability_map(const Context& ctx, const optimisers::ServerStepLimit& limit) {
  ClaimResult out;
  const std::vector<double> eta =
      log_grid(kEtaLow, kEtaHigh, ctx.options.quick ? kEtaPointsQuick : kEtaPoints);
  const std::vector<double> betas = momenta(ctx.options.quick);
  const auto& problems = default_quadratic_problems();
  const std::vector<bool> forms = {false, true};
  // Every (problem, γHL, form, β) line, computed in parallel, read in order below.
  const std::size_t per_form = betas.size();
  const std::size_t per_ghl = forms.size() * per_form;
  const std::size_t per_problem = kGammaHL.size() * per_ghl;
  const std::vector<Line> lines =
      kit::spread_tasks<Line>(ctx, problems.size() * per_problem, [&](std::size_t i) {
        const auto& q = as_quadratic(problems[i / per_problem]);
        const double ghl = kGammaHL[i % per_problem / per_ghl];
        return scan(q, ghl / (kH * q.smoothness()), betas[i % per_form],
                    forms[i % per_ghl / per_form], eta, limit);
      });
  std::vector<PlotSpec> figures(2);
  for (const bool nesterov : forms) {
    figures[nesterov ? 1 : 0] = PlotSpec{fmt::format("{} on {}: stable server steps (H = {})",
                                                     form_name(nesterov), problems.back().name, kH),
                                         "server step η_g",
                                         "server momentum β",
                                         true,
                                         false,
                                         false,
                                         {}};
  }
  std::vector<std::vector<std::string>> note_limits(2);
  std::vector<std::string> limits_note;
  double smallest = std::numeric_limits<double>::infinity();
  std::string smallest_where;
  std::size_t next = 0;
  for (const auto& np : problems) {
    for (double ghl : kGammaHL) {
      for (bool nesterov : forms) {
        std::vector<double> z, bisected, limits, worst_gap;
        std::vector<double> curve_beta, curve_bisected, curve_limit;
        int checked = 0, agreeing = 0;
        double worst = 0;
        for (double beta : betas) {
          const Line& line = lines[next++];
          for (double r : line.radius) z.push_back(r < 1.0 ? 0.0 : 1.0);
          checked += line.checked;
          agreeing += line.agreeing;
          const double b = line.divergence.found() ? line.divergence.gamma
                                                   : std::numeric_limits<double>::quiet_NaN();
          const double gap = std::abs(b / line.limit - 1.0);
          worst = std::isnan(gap) ? std::numeric_limits<double>::infinity() : std::max(worst, gap);
          bisected.push_back(b);
          limits.push_back(line.limit);
          if (line.divergence.found()) {
            curve_beta.push_back(beta);
            curve_bisected.push_back(b);
          }
          curve_limit.push_back(line.limit);
          if (&np == &problems.back() && (beta == 0.0 || beta == 0.5 || beta == 0.9)) {
            note_limits[nesterov ? 1 : 0].push_back(
                fmt::format("{:.3g} (γHL = {:g}, β = {:g})", line.limit, ghl, beta));
          }
          if (b < smallest) {
            smallest = b;
            smallest_where =
                fmt::format("{}, γHL = {:g}, {} β = {:g}", np.name, ghl, form_name(nesterov), beta);
          }
        }
        Row row;
        row.setting =
            fmt::format("{}, H = {}, γHL = {:g}, {}", np.name, kH, ghl, form_name(nesterov));
        row.predicted = nesterov ? "stable iff γη_g d_max < 2(1 + β)/(1 + 2β)"
                                 : "stable iff γη_g d_max < 2(1 + β)";
        const auto [lo, hi] = std::minmax_element(limits.begin(), limits.end());
        row.measured = fmt::format(
            "{}/{} grid points on the predicted side; max |bisected/limit − 1| = {:.2g}; η_g "
            "limit {:.3g}–{:.3g}",
            agreeing, checked, worst, *lo, *hi);
        row.passed = agreeing == checked && worst <= kBisectionMatch;
        row.data = {{"gamma_hl", ghl},      {"nesterov", nesterov},     {"beta", betas},
                    {"eta_limit", limits},  {"eta_bisected", bisected}, {"points", checked},
                    {"agreeing", agreeing}, {"max_relative_gap", worst}};
        for (std::size_t i = 0; i < betas.size(); ++i) {
          kit::gate(row, fmt::format("eta_bisected[{}]", i), bisected[i],
                    kBoundaryGateRelative * bisected[i]);
        }
        out.rows.push_back(std::move(row));
        if (&np == &problems.back()) {
          PlotSpec& p = figures[nesterov ? 1 : 0];
          if (ghl == kFigureGammaHL) {
            p.heatmap.x = eta;
            p.heatmap.y = betas;
            p.heatmap.z = std::move(z);
            p.heatmap.classes = {"stable (ρ < 1)", "divergent (ρ ≥ 1)"};
          }
          p.series.push_back({fmt::format("closed form, γHL = {:g}", ghl), curve_limit, betas,
                              fmt::format("lines dashtype 2 lw 2 lc rgb '{}'", colour(ghl))});
          p.series.push_back({fmt::format("bisected, γHL = {:g}", ghl), curve_bisected, curve_beta,
                              fmt::format("points pt 7 lc rgb '{}'", colour(ghl))});
        }
      }
    }
    if (&np == &problems.back()) {
      for (const bool nesterov : forms) {
        limits_note.push_back(fmt::format("{}: {}", form_name(nesterov),
                                          fmt::join(note_limits[nesterov ? 1 : 0], ", ")));
      }
    }
  }
  if (ctx.figures) {
    for (const bool nesterov : forms) {
      const std::string name = nesterov ? "nesterov" : "heavy-ball";
      kit::add_figure(
          ctx, figures[nesterov ? 1 : 0], fmt::format("map-server-stability-{}.svg", name),
          fmt::format("{} server momentum on {}, H = {}: each (η_g, β) cell at γHL = {:g} "
                      "classified by the exact spectral radius of the round map on (x, m); dashed: "
                      "the closed-form limit at each γHL, points: the bisected boundary.",
                      form_name(nesterov), problems.back().name, kH, kFigureGammaHL),
          out);
    }
  }
  out.note = fmt::format(
      "Largest stable η_g at β = 0, 0.5, 0.9 on {} for γHL = {}: {}. The stable region grows "
      "with β for heavy ball (×(1 + β)) and shrinks for Nesterov at large β (×(1 + β)/(1 + 2β) → "
      "2/3); it grows with γHL in η_g because d_max/(HL) falls below 1.",
      problems.back().name, fmt::join(kGammaHL, ", "), fmt::join(limits_note, "; "));
  out.breaks_at = fmt::format("η_g ≈ {:.3g} ({})", smallest, smallest_where);
  return out;
}

namespace {

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::maps, 5},
                    .card = kCard,
                    .values = {{"h", kH},
                               {"ghl", fmt::format("{}", fmt::join(kGammaHL, ", "))},
                               {"betas_quick", static_cast<int>(momenta(true).size())},
                               {"betas", static_cast<int>(momenta(false).size())},
                               {"points_quick", kEtaPointsQuick},
                               {"points", kEtaPoints},
                               {"eta_low", kEtaLow},
                               {"eta_high", kEtaHigh},
                               {"precision", kBisectionPrecision},
                               {"bisection_match", kBisectionMatch}},
                    .alpha = 0,
                    .sweep = true,
                    .run = [](const Context& ctx) {
                      return server_stability_map(ctx, theory::fedopt_server_step_limit);
                    }});

}  // namespace
}  // namespace fedverify::claims::maps
