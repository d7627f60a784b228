#include "verify/claims/maps/common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "theory/closed_forms/bounds.hpp"
#include "theory/closed_forms/exact.hpp"

namespace fedverify::claims::maps {

std::vector<double> log_grid(double lo, double hi, int n) {
  if (n < 2 || !(lo > 0.0) || !(hi > lo)) throw std::logic_error("log_grid: bad range");
  std::vector<double> g(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    g[static_cast<std::size_t>(i)] = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
  }
  g.back() = hi;
  return g;
}

std::vector<double> step_sizes(const std::vector<double>& gamma_l, double smoothness) {
  std::vector<double> gamma;
  gamma.reserve(gamma_l.size());
  for (double gl : gamma_l) gamma.push_back(gl / smoothness);
  return gamma;
}

double round_radius(const theory::QuadraticProblem& q, theory::Algorithm algorithm,
                    const theory::RunSetting& step) {
  if (algorithm == theory::Algorithm::fedavg) return theory::fedavg_contraction_factor(q, step);
  if (algorithm == theory::Algorithm::scaffold) return theory::scaffold_spectral_radius(q, step);
  throw std::logic_error("round_radius: FedAvg and Scaffold only");
}

RateClass classify(double radius, double claimed) {
  if (!(radius < 1.0)) return RateClass::divergent;  // NaN (overflow) counts as divergent
  return radius <= claimed + kRadiusRoundOff ? RateClass::as_claimed : RateClass::slower;
}

std::vector<std::string> rate_class_names() {
  return {"as claimed", "slower", "divergent"};  // slower: stable, ρ above the claim
}

Boundary first_change(const std::vector<double>& grid, const std::vector<bool>& flags,
                      const std::function<bool(double)>& flag) {
  Boundary b;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (!flags[i]) continue;
    if (i == 0) {
      b.kind = Boundary::Kind::below_grid;
      b.gamma = grid[0];
      return b;
    }
    double lo = grid[i - 1], hi = grid[i];
    while (hi - lo > kBisectionPrecision * hi) {
      const double mid = std::sqrt(lo * hi);  // geometric: the grids are log-spaced
      (flag(mid) ? hi : lo) = mid;
    }
    b.kind = Boundary::Kind::found;
    b.gamma = hi;
    b.lower = lo;
    b.grid_index = i;
    return b;
  }
  return b;
}

double boundary_ghl(const Boundary& b, double l, int h) {
  return b.kind == Boundary::Kind::none ? std::numeric_limits<double>::quiet_NaN()
                                        : b.gamma * h * l;
}

namespace {

// A boundary at γ·scale named `unit` ("γHL", "γL"), or the grid's end when there is none.
std::string boundary_text_in(const Boundary& b, double scale, const char* unit,
                             double grid_end_gamma_l) {
  switch (b.kind) {
    case Boundary::Kind::none:
      return fmt::format("none for γL ≤ {:g}", grid_end_gamma_l);
    case Boundary::Kind::below_grid:
      return fmt::format("≤ {} {:.3g} (below the grid)", unit, b.gamma * scale);
    case Boundary::Kind::found:
      break;
  }
  return fmt::format("{} ≈ {:.4g}", unit, b.gamma * scale);
}

}  // namespace

std::string boundary_text(const Boundary& b, double l, int h, double grid_end_gamma_l) {
  return boundary_text_in(b, h * l, "γHL", grid_end_gamma_l);
}

std::string boundary_gamma_l_text(const Boundary& b, double l, double grid_end_gamma_l) {
  return boundary_text_in(b, l, "γL", grid_end_gamma_l);
}

PlotSpec map_plot(std::string title, const std::vector<double>& gamma_l, const std::vector<int>& hs,
                  std::vector<double> z, std::string zlabel, bool ghl_line) {
  PlotSpec p;
  p.title = std::move(title);
  p.xlabel = "γL";
  p.ylabel = "local steps H";
  p.log_x = true;
  p.log_y = true;
  p.heatmap.x = gamma_l;
  for (int h : hs) p.heatmap.y.push_back(h);
  p.heatmap.z = std::move(z);
  p.heatmap.zlabel = std::move(zlabel);
  if (ghl_line) {
    // γHL = 1, i.e. γL = 1/H, across the H range of the map.
    std::vector<double> x, y;
    for (double h : log_grid(0.7 * hs.front(), 1.4 * hs.back(), 20)) {
      x.push_back(1.0 / h);
      y.push_back(h);
    }
    p.series.push_back({"γHL = 1", x, y, "lines dashtype 2 lw 2 lc rgb 'black'"});
  }
  return p;
}

}  // namespace fedverify::claims::maps
