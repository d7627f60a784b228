#include "verify/claims/dynamics/complexity_rows.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::dynamics {
namespace {

// The band of log(count) with the grid's allowance below: [log lower − grid_allowance(T), log
// upper], T the rounds behind the lower count.
struct LogBand {
  double lower = 0, upper = 0;
};
LogBand log_band(const CountBand& c, int per_round) {
  const auto fewest = static_cast<int>(c.lower / per_round);
  return {std::log(c.lower) - grid_allowance(fewest), std::log(c.upper)};
}

}  // namespace

std::string epsilon_name(std::size_t j) {
  return fmt::format("E_ref/{}", std::lround(std::pow(4.0, static_cast<double>(j + 1))));
}

// The row of one method from its searches over N; adds its series to `plot` and returns N_end
// per ε (ascending ε index) for the breaks line.
std::vector<std::string> method_row(const ComplexityGrid& g, const ComplexityRule& r,
                                    ComplexityMethod m,
                                    const std::vector<SimulatedComplexity>& per_n, PlotSpec& plot,
                                    ClaimResult& out) {
  const int per_round =
      gradients_per_round(m, m == ComplexityMethod::minibatch_sgd ? 1 : g.setting.local_steps);
  const std::size_t j_small = g.eps2.size() - 1;
  Row row;
  row.setting = fmt::format("{}, N ∈ {{2, 4, 8}}, ε² = {}", to_string(m), epsilon_name(j_small));
  row.predicted =
      fmt::format("slope in N = −1 ± {0}; in ε ∈ [−2.5 − {0}, −2 + {0}]", r.slope_margin);
  // N_end(ε) from the estimated counts, the table and the figure's series.
  std::vector<std::string> ends;
  nlohmann::json table = nlohmann::json::array();
  for (std::size_t j = 0; j < g.eps2.size(); ++j) {
    std::vector<double> estimated;
    estimated.reserve(per_n.size());
    for (const auto& c : per_n) estimated.push_back(c.per_epsilon[j].point);
    const int end = speedup_end(g.ns, estimated);
    ends.push_back(end > 0 ? std::to_string(end) : fmt::format("> {}", g.ns.back()));
    std::vector<double> lo, pt, hi, gam, nn, mid, half;
    for (std::size_t i = 0; i < per_n.size(); ++i) {
      const CountBand& c = per_n[i].per_epsilon[j];
      lo.push_back(c.lower);
      pt.push_back(c.point);
      hi.push_back(c.upper);
      gam.push_back(c.gamma);
      if (c.upper > 0) {
        nn.push_back(g.ns[i]);
        mid.push_back(0.5 * (c.lower + c.upper));
        half.push_back(0.5 * (c.upper - c.lower));
      }
    }
    table.push_back({{"epsilon2", g.eps2[j]},
                     {"N_end", end},
                     {"gradients_lower", lo},
                     {"gradients", pt},
                     {"gradients_upper", hi},
                     {"gamma", gam}});
    if (j == j_small || m == ComplexityMethod::scaffold) {
      plot.series.push_back({fmt::format("{}, ε² = {}", to_string(m), epsilon_name(j)), nn, mid,
                             "linespoints", half});
    }
  }
  bool reached = true;
  for (std::size_t i = 0; i < 3; ++i) reached = reached && per_n[i].per_epsilon[j_small].upper > 0;
  for (const auto& c : per_n.front().per_epsilon) reached = reached && c.upper > 0;
  if (!reached) {
    row.measured = "some ε² not certified reached at N = 2, or the smallest not at N ≤ 8";
    row.passed = false;
    row.data = {{"per_epsilon", table}};
    out.rows.push_back(row);
    return ends;
  }
  std::vector<double> log_n, n_lo, n_hi, n_point;
  for (std::size_t i = 0; i < 3; ++i) {
    const CountBand& c = per_n[i].per_epsilon[j_small];
    const LogBand b = log_band(c, per_round);
    log_n.push_back(std::log(g.ns[i]));
    n_lo.push_back(b.lower);
    n_hi.push_back(b.upper);
    n_point.push_back(std::log(c.point));
  }
  std::vector<double> log_eps, e_lo, e_hi, e_point;
  for (std::size_t j = 0; j < g.eps2.size(); ++j) {
    const CountBand& c = per_n.front().per_epsilon[j];
    const LogBand b = log_band(c, per_round);
    log_eps.push_back(0.5 * std::log(g.eps2[j]));
    e_lo.push_back(b.lower);
    e_hi.push_back(b.upper);
    e_point.push_back(std::log(c.point));
  }
  const auto in_n = estimators::slope_range(log_n, n_lo, n_hi);
  const auto in_eps = estimators::slope_range(log_eps, e_lo, e_hi);
  const double slope_n = estimators::fit_slope(log_n, n_point, 0.5).slope;
  const double slope_eps = estimators::fit_slope(log_eps, e_point, 0.5).slope;
  const double n_low = -1 - r.slope_margin, n_high = -1 + r.slope_margin;
  const double e_low = r.epsilon_slope_low - r.slope_margin, e_high = -2 + r.slope_margin;
  const bool inside = in_n.lower >= n_low && in_n.upper <= n_high && in_eps.lower >= e_low &&
                      in_eps.upper <= e_high;
  row.passed = in_n.upper >= n_low && in_n.lower <= n_high && in_eps.upper >= e_low &&
               in_eps.lower <= e_high;
  std::vector<std::string> descending(ends.rbegin(), ends.rend());
  row.measured = fmt::format(
      "slope in N {:.3f} [{:.3f}, {:.3f}]; in ε {:.3f} [{:.3f}, {:.3f}]; N_end = {} for ε² = "
      "{} … {}",
      slope_n, in_n.lower, in_n.upper, slope_eps, in_eps.lower, in_eps.upper,
      fmt::join(descending, ", "), epsilon_name(j_small), epsilon_name(0));
  int curves = 0;
  bool exhausted = false;
  for (const auto& c : per_n) {
    curves += c.curves;
    exhausted = exhausted || c.exhausted;
  }
  row.data = {{"slope_n", slope_n},
              {"slope_n_range", {in_n.lower, in_n.upper}},
              {"slope_epsilon", slope_eps},
              {"slope_epsilon_range", {in_eps.lower, in_eps.upper}},
              {"clients", g.ns},
              {"E_ref", g.e_ref},
              {"H", g.setting.local_steps},
              {"z", g.z},
              {"chains", g.search.chains},
              {"curves", curves},
              {"grid_exhausted", exhausted},
              {"per_epsilon", table}};
  // The confirmation's resolution: the ranges' widths (an error of a slope beyond its margin by
  // more than its range's width is refuted); the grid's part of them does not shrink with chains.
  kit::add_equivalence(row, r.slope_margin, inside,
                       fmt::format("slope ranges inside the margins (bands at α = {})", r.alpha),
                       std::max(in_n.upper - in_n.lower, in_eps.upper - in_eps.lower));
  kit::gate(row, "slope_n", slope_n, 0.5 * (in_n.upper - in_n.lower));
  kit::gate(row, "slope_epsilon", slope_eps, 0.5 * (in_eps.upper - in_eps.lower));
  out.rows.push_back(row);
  return ends;
}

// The control variate's assumption, checked in the same run: the twin rows follow the exact law of
// the per-sample linearisation — the time-averaged relative gap of every curve of the claim,
// pooled (zero under that law).
void twin_row(const std::vector<SimulatedComplexity>& all, int chains, const ComplexityRule& r,
              ClaimResult& out) {
  std::vector<estimators::ReplicatedMean> gaps;
  nlohmann::json per_search = nlohmann::json::array();
  for (const auto& s : all) {
    gaps.push_back({s.twin_gap, s.twin_gap_se, chains - 1.0});
    per_search.push_back({s.twin_gap, s.twin_gap_se});
  }
  const estimators::ReplicatedMean gap = estimators::pooled_mean(gaps);
  const estimators::Decision rule = estimators::z_agreement(gap, 0.0, 0.0, r.alpha);
  Row row;
  row.setting = "the twin rows of every curve (control variate's assumption)";
  row.predicted = "the exact law of the per-sample linearisation: relative gap 0";
  row.measured = fmt::format("relative gap {:+.5f} ± {:.5f} (pooled over {} searches)", gap.mean,
                             gap.se, all.size());
  row.passed = rule.passed;
  row.data = {{"gap", gap.mean},
              {"gap_se", gap.se},
              {"decision", rule.description},
              {"per_search", per_search}};  // (gap, se), in the order method × N of the rows
  kit::agreement(row, r.twin_margin, "twin's curve against its exact law", gap, 0.0, 1.0, rule);
  kit::gate(row, "gap", gap.mean, kit::kBaselineZ * gap.se);
  out.rows.push_back(row);
}

}  // namespace fedverify::claims::dynamics
