// Claim maps.fedgda-stability (THEORY M7, M0): where FedGDA is stable over (α₂/α₁, α₁L, R), on a
// strongly monotone quadratic game and in the bilinear limit A = C = 0, where simultaneous GDA is
// known to diverge. Exact: spectral radii of the round map (theory/algorithms/fedgda.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "theory/algorithms/fedgda.hpp"
#include "theory/problems/game_generator.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/tasks.hpp"
#include "verify/claims/maps/maps.hpp"

namespace fedverify::claims::maps {
namespace {

constexpr const char* kId = "maps.fedgda-stability";

constexpr const char* kCard = R"(
Summary: One-step FedGDA is stable exactly below α₁,max; bilinear games are never stable.
Statement: With one local step FedGDA is stable exactly for α₁ < α₁,max = min_μ 2 Re μ/|μ|², μ the
  eigenvalues of diag(I, (α₂/α₁) I) M̄, at every step ratio; on a bilinear game (A = C = 0) no
  step is stable and the round map's spectral radius is √(1 + α₁α₂ σ_max(B̄)²). With R > 1 local
  steps the map locates where stability ends (no closed form).
Formula: α₁,max = min_μ 2 Re μ / |μ|² (M7, derived here); bilinear: ρ = √(1 + α₁α₂ σ_max(B̄)²)
THEORY: (M7), (M0), (M1)
Setting: a generated game (p = 3, q = 2, N = 4, condition 10, coupling 0.5, seed 1) and a bilinear
  one (p = q = 2, N = 4, its A_i = C_i = 0); α₁L on ${points_quick} log-spaced values in
  [${low}, ${high}] (${points} on the full grid), L = max_i ‖M_i‖₂; α₂/α₁ ∈ {${ratios}};
  R ∈ {${rs}}.
Decision: monotone game, R = 1: every grid point on the side of α₁,max that (M7) puts it (points
  within ${precision} excepted), and the bisected first unstable α₁ within ${match} of α₁,max;
  bilinear, R = 1: ρ ≥ 1 at every grid point and |ρ − √(1 + α₁α₂σ²)| ≤ ${roundoff}; R > 1: the
  bisected boundary reported (a map, no prediction)
Sample row:
  | monotone game, α₂/α₁ = 1, R = 1 | stable iff α₁ < α₁,max | 16/16 grid points on the predicted side;
  |bisected/limit − 1| = 5e-07; α₁,max L = 0.72 | ✅ |
Notes: For R > 1 the "breaks at" values show how local steps move the stability edge. On the
  heterogeneous bilinear game local steps R ≥ 5 make FedGDA stable for small steps (R = 2 does
  not): to second order the round map is I − αRJ̄ + α²(R(R − 1)/2)·mean(J_i²) with J_i the skew
  client operators, whose mean(J_i²) = J̄² − Var(J) adds damping proportional to the clients'
  spread of B_i (derived here, THEORY M7) — the limit is then not z* (M2).
)";

constexpr double kLow = 1e-3, kHigh = 10.0;
constexpr int kPoints = 30, kPointsQuick = 16;
const std::vector<double> kRatios = {0.1, 0.3, 1.0, 3.0, 10.0};
const std::vector<int> kRs = {1, 2, 5, 10};
constexpr double kBisectionMatch = 2.0 * kBisectionPrecision;

theory::QuadraticGame monotone_game() {
  theory::QuadraticGameGeneratorOptions o;
  o.theta_dim = 3;
  o.tau_dim = 2;
  o.clients = 4;
  o.seed = 1;
  return theory::generate_quadratic_game(o);
}

theory::QuadraticGame bilinear_game() {
  theory::QuadraticGameGeneratorOptions o;
  o.clients = 4;
  o.seed = 1;
  o.coupling = 1.0;
  const theory::QuadraticGame g = theory::generate_quadratic_game(o);
  std::vector<theory::QuadraticGameClient> clients;
  for (int i = 0; i < g.num_clients(); ++i) {
    theory::QuadraticGameClient c = g.client(i);
    c.a.setZero();
    c.c.setZero();
    clients.push_back(std::move(c));
  }
  return theory::QuadraticGame(std::move(clients));
}

double smoothness(const theory::QuadraticGame& g) {
  double l = 0;
  for (int i = 0; i < g.num_clients(); ++i) {
    l = std::max(l, Eigen::JacobiSVD<Matrix>(g.operator_matrix(i)).singularValues()(0));
  }
  return l;
}

struct Line {  // one (game, ratio, R) of the map
  std::vector<double> radius;
  Boundary boundary;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Line, radius, boundary)

Line scan(const theory::QuadraticGame& g, double ratio, int r, const std::vector<double>& alpha) {
  const auto unstable = [&](double a) {
    return !(theory::fedgda_spectral_radius(g, {a, ratio * a, r}) < 1.0);
  };
  Line line;
  std::vector<bool> flags;
  for (double a : alpha) {
    line.radius.push_back(theory::fedgda_spectral_radius(g, {a, ratio * a, r}));
    flags.push_back(!(line.radius.back() < 1.0));
  }
  line.boundary = first_change(alpha, flags, unstable);
  return line;
}

}  // namespace

ClaimResult fedgda_stability_map(const Context& ctx, const GdaStepLimit& step_limit) {
  ClaimResult out;
  const theory::QuadraticGame games[] = {monotone_game(), bilinear_game()};
  const char* names[] = {"monotone game", "bilinear game"};
  const std::vector<double> alpha_l =
      log_grid(kLow, kHigh, ctx.options.quick ? kPointsQuick : kPoints);
  const std::size_t per_game = kRatios.size() * kRs.size();
  std::vector<double> l(2);
  for (int k = 0; k < 2; ++k) l[k] = smoothness(games[k]);
  const std::vector<Line> lines = kit::spread_tasks<Line>(ctx, 2 * per_game, [&](std::size_t i) {
    const int k = static_cast<int>(i / per_game);
    std::vector<double> alpha;
    for (double al : alpha_l) alpha.push_back(al / l[k]);
    return scan(games[k], kRatios[i % per_game / kRs.size()], kRs[i % kRs.size()], alpha);
  });
  std::vector<PlotSpec> figures;
  for (int k = 0; k < 2; ++k) {
    PlotSpec p{fmt::format("FedGDA on the {}: spectral radius of the round map", names[k]),
               "α₁L",
               "α₂/α₁",
               true,
               true,
               false,
               {}};
    for (int r : {1, 5}) {
      std::vector<double> z, ratio_axis;
      for (std::size_t j = 0; j < kRatios.size(); ++j) {
        const std::size_t ri = std::find(kRs.begin(), kRs.end(), r) - kRs.begin();
        const Line& line = lines[k * per_game + j * kRs.size() + ri];
        for (double rho : line.radius) z.push_back(std::min(rho, 2.0));
      }
      if (r == 1) {
        p.heatmap.x = alpha_l;
        p.heatmap.y = kRatios;
        p.heatmap.z = std::move(z);
        p.heatmap.zlabel = "ρ (R = 1, capped at 2)";
      }
    }
    for (int r : kRs) {
      std::vector<double> xs, ys;
      for (std::size_t j = 0; j < kRatios.size(); ++j) {
        const std::size_t ri = std::find(kRs.begin(), kRs.end(), r) - kRs.begin();
        const Line& line = lines[k * per_game + j * kRs.size() + ri];
        if (line.boundary.found()) {
          xs.push_back(line.boundary.gamma * l[k]);
          ys.push_back(kRatios[j]);
        }
      }
      if (!xs.empty()) {
        p.series.push_back({fmt::format("stability edge, R = {}", r), xs, ys, "linespoints lw 2"});
      }
    }
    figures.push_back(std::move(p));
  }
  double smallest = std::numeric_limits<double>::infinity();
  std::string smallest_where;
  for (int k = 0; k < 2; ++k) {
    for (std::size_t j = 0; j < kRatios.size(); ++j) {
      for (std::size_t ri = 0; ri < kRs.size(); ++ri) {
        const Line& line = lines[k * per_game + j * kRs.size() + ri];
        const double ratio = kRatios[j];
        const int r = kRs[ri];
        Row row;
        row.setting = fmt::format("{}, α₂/α₁ = {:g}, R = {}", names[k], ratio, r);
        const double edge = line.boundary.found() ? line.boundary.gamma * l[k]
                                                  : std::numeric_limits<double>::quiet_NaN();
        if (line.boundary.found() && edge < smallest && k == 0) {
          smallest = edge;
          smallest_where = row.setting;
        }
        if (r == 1 && k == 0) {
          const double limit = step_limit(games[k], ratio);
          int checked = 0, agreeing = 0;
          for (std::size_t a = 0; a < alpha_l.size(); ++a) {
            const double alpha = alpha_l[a] / l[k];
            if (std::abs(alpha / limit - 1.0) <= kBisectionPrecision) continue;
            ++checked;
            agreeing += (line.radius[a] < 1.0) == (alpha < limit) ? 1 : 0;
          }
          const double gap = line.boundary.found() ? std::abs(line.boundary.gamma / limit - 1.0)
                                                   : std::numeric_limits<double>::infinity();
          row.predicted = "stable iff α₁ < α₁,max (M7)";
          row.measured = fmt::format(
              "{}/{} grid points on the predicted side; |bisected/limit − 1| = {:.2g}; α₁,max L = "
              "{:.4g}",
              agreeing, checked, gap, limit * l[k]);
          row.passed = agreeing == checked && gap <= kBisectionMatch;
          row.data = {{"limit_alpha_l", limit * l[k]},
                      {"bisected_alpha_l", edge},
                      {"agreeing", agreeing},
                      {"points", checked}};
          kit::gate(row, "bisected_alpha_l", edge, kBoundaryGateRelative * edge);
        } else if (r == 1) {
          const double sigma = Eigen::JacobiSVD<Matrix>([&] {
                                 Matrix b = Matrix::Zero(games[k].theta_dim(), games[k].tau_dim());
                                 for (int i = 0; i < games[k].num_clients(); ++i) {
                                   b += games[k].client(i).b / games[k].num_clients();
                                 }
                                 return b;
                               }())
                                   .singularValues()(0);
          double worst = 0;
          bool all_unstable = true;
          for (std::size_t a = 0; a < alpha_l.size(); ++a) {
            const double alpha = alpha_l[a] / l[k];
            const double predicted = std::sqrt(1.0 + ratio * alpha * alpha * sigma * sigma);
            worst = std::max(worst, std::abs(line.radius[a] - predicted) / predicted);
            all_unstable = all_unstable && !(line.radius[a] < 1.0);
          }
          row.predicted = "no stable step; ρ = √(1 + α₁α₂σ_max²)";
          row.measured =
              fmt::format("ρ ≥ 1 at {} of {} grid points; max relative |ρ − formula| = {:.2g}",
                          all_unstable ? alpha_l.size() : 0, alpha_l.size(), worst);
          row.passed = all_unstable && worst <= kRadiusRoundOff;
          row.data = {{"max_relative_error", worst}};
        } else {
          row.predicted = "(map: no closed form)";
          row.measured = line.boundary.found() ? fmt::format("unstable from α₁L ≈ {:.4g}", edge)
                         : line.boundary.kind == Boundary::Kind::below_grid
                             ? fmt::format("unstable on the whole grid (α₁L ≥ {:g})", kLow)
                             : fmt::format("stable on the whole grid (α₁L ≤ {:g})", kHigh);
          row.passed = true;
          row.data = {{"bisected_alpha_l", line.boundary.found() ? edge : -1.0}};
          if (line.boundary.found()) {
            kit::gate(row, "bisected_alpha_l", edge, kBoundaryGateRelative * edge);
          }
        }
        out.rows.push_back(std::move(row));
      }
    }
  }
  out.breaks_at =
      fmt::format("monotone game: stability ends at α₁L ≈ {:.3g} ({})", smallest, smallest_where);
  kit::add_figure(ctx, figures[0], "fedgda_stability_monotone.svg",
                  "FedGDA on the monotone game: ρ of the round map with R = 1 over (α₁L, α₂/α₁), "
                  "and the stability edge for each R",
                  out);
  kit::add_figure(ctx, figures[1], "fedgda_stability_bilinear.svg",
                  "FedGDA on the bilinear game: ρ ≥ 1 everywhere for R = 1", out);
  return out;
}

namespace {

const bool registered =
    register_claim({.id = kId,
                    .order = {Section::maps, 6},
                    .card = kCard,
                    .values = {{"low", kLow},
                               {"high", kHigh},
                               {"points", kPoints},
                               {"points_quick", kPointsQuick},
                               {"ratios", "0.1, 0.3, 1, 3, 10"},
                               {"rs", "1, 2, 5, 10"},
                               {"precision", kBisectionPrecision},
                               {"match", kBisectionMatch},
                               {"roundoff", kRadiusRoundOff}},
                    .alpha = 0,
                    .sweep = true,
                    .run = [](const Context& ctx) {
                      return fedgda_stability_map(ctx, theory::fedgda_step_limit);
                    }});

}  // namespace
}  // namespace fedverify::claims::maps
