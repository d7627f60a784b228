// Claim personalised.local-gd-myth.
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "theory/problems/optimum.hpp"
#include "verify/claims/dynamics/complexity.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/personalised/personalised.hpp"
#include "verify/claims/problems/default_problems.hpp"
#include "verify/claims/problems/dynamics_problems.hpp"

namespace fedverify::claims::personalised {
namespace {

using dynamics::Complexity;
using dynamics::ComplexityCount;
using dynamics::ComplexityMethod;
using dynamics::ComplexitySetting;

constexpr const char* kId = "personalised.local-gd-myth";

constexpr const char* kCard = R"(
Summary: On ERM, Local GD loses to GD in communication rounds as ε → 0; it may win at moderate ε.
Statement: Seed 001's "myth" slide: local step methods such as Local GD have no theoretical
  communication advantage over GD on ERM. With heterogeneous clients and full (noise-free) local
  gradients, Local GD's fixed point is biased by O(γ(H − 1)) (F4), so reaching ε forces γ ∝ ε and
  its rounds grow like 1/ε, against GD's log(1/ε): as ε → 0 every H > 1 needs more rounds than GD.
  Where local steps do save rounds (moderate ε), the row reports it.
Formula: rounds_H(ε) = min_γ T(γ, H, ε);  Local GD (H > 1): rounds ∝ 1/ε;  GD: (L/μ) log(1/ε)
THEORY: (F4), (T1), (T2)
Setting: q-small (d = 2, N = 3), hetero-4 (d = 2, N = 4) and q-gen5 (d = 5, N = 6, condition 10),
  each with its noise removed (full local gradients); x₀ = x* + √2·1; H ∈ {1, 2, 4, 8, 16}; γ on a
  grid of ratio 2^{1/8} below 1/L; ε² = ‖x₀ − x*‖²·10^{−k}, k ∈ {1, 2, 3, 4, 5, 6}. T the first
  round after which ‖x_t − x*‖² ≤ ε² for good, from the exact (deterministic) curve (T1).
Decision: deterministic, per problem: at the smallest ε the best H > 1 needs at least GD's rounds
  divided by the γ grid's allowance 2^{1/8}(1 + 1/T), and its rounds grow over the last decade of
  ε² with a slope in log(1/ε) of at least ${slope} (1/ε predicts 1; log(1/ε) would give ≈ 0.2).
Sample row:
  | hetero-4 (noise-free), ε² = ‖x₀ − x*‖²·10^{−1} … 10^{−6} | at the smallest ε Local GD needs ≥
  GD's rounds; its rounds grow like 1/ε (slope ≥ 0.8) | at ε² = 10^−6·‖x₀ − x*‖²: GD 11, Local GD
  349 (H = 2); slope 1.14; local steps save rounds at 10^−1 (1 rounds at H = 2 vs GD 2), 10^−2 (2
  rounds at H = 2 vs GD 3) | ✅ holds |
Notes: The search is verify/claims/dynamics/complexity.hpp counting rounds. The slide's statement is
  about worst-case theory; on a given problem local steps can save rounds while ε is above Local
  GD's bias, and the row lists where.
)";

const std::vector<int> kLocalSteps = {1, 2, 4, 8, 16};
const std::vector<int> kAccuracies = {1, 2, 3, 4, 5, 6};  // ε² = ‖x₀ − x*‖²·10^{−k}
// Local GD's rounds against log(1/ε) over the last decade of ε²: 1/ε gives 1.
constexpr double kSlopeFloor = 0.8;

}  // namespace

theory::QuadraticProblem noise_free(const theory::QuadraticProblem& q) {
  std::vector<theory::QuadraticClient> clients;
  for (int c = 0; c < q.num_clients(); ++c) {
    theory::QuadraticClient k = q.client(c);
    k.noise_cov.setZero();
    clients.push_back(std::move(k));
  }
  return theory::QuadraticProblem(std::move(clients));
}

namespace {

Row myth_row(const std::string& name, const theory::QuadraticProblem& q, PlotSpec* plot) {
  const Vector x_star = theory::problem_constants(q).x_star;
  const Vector x0 = x_star + Vector::Constant(q.dim(), std::sqrt(2.0));
  const double d0 = (x0 - x_star).squaredNorm();
  std::vector<double> eps2;
  eps2.reserve(kAccuracies.size());
  for (int k : kAccuracies) eps2.push_back(d0 * std::pow(10.0, -k));
  std::vector<Complexity> per_h;
  for (int h : kLocalSteps) {
    ComplexitySetting s;
    s.local_steps = h;
    s.gamma_max_l = 1.0;
    s.count = ComplexityCount::rounds;
    per_h.push_back(dynamics::gradient_complexity(q, ComplexityMethod::fedavg, s, x0, eps2));
  }
  // The best H > 1 at each ε.
  std::vector<double> best(eps2.size(), 0.0);
  std::vector<int> best_h(eps2.size(), 0);
  std::vector<std::string> saves;
  int saves_down_to = 0;  // the largest k (smallest ε) where some H > 1 needs fewer rounds
  nlohmann::json table = nlohmann::json::array();
  for (std::size_t j = 0; j < eps2.size(); ++j) {
    for (std::size_t i = 1; i < kLocalSteps.size(); ++i) {
      const double r = per_h[i].gradients[j];
      if (r > 0 && (best[j] == 0 || r < best[j])) best[j] = r, best_h[j] = kLocalSteps[i];
    }
    const double gd = per_h.front().gradients[j];
    if (best[j] > 0 && best[j] < gd) {
      saves_down_to = kAccuracies[j];
      saves.push_back(fmt::format("10^−{} ({:g} rounds at H = {} vs GD {:g})", kAccuracies[j],
                                  best[j], best_h[j], gd));
    }
    std::vector<double> rounds;
    rounds.reserve(per_h.size());
    for (const auto& c : per_h) rounds.push_back(c.gradients[j]);
    table.push_back(
        {{"epsilon2_relative", std::pow(10.0, -kAccuracies[j])}, {"rounds_by_H", rounds}});
  }
  const std::size_t last = eps2.size() - 1;
  const double gd = per_h.front().gradients[last];
  const double allowance =
      std::pow(2.0, 1.0 / 8.0) * (1.0 + 1.0 / std::max(1.0, std::min(gd, best[last])));
  const bool no_advantage_at_end = best[last] == 0 || best[last] * allowance >= gd;
  // Slope of log rounds in log(1/ε) over the last decade of ε² (half a decade of ε).
  const double slope = best[last] > 0 && best[last - 1] > 0
                           ? std::log(best[last] / best[last - 1]) / (0.5 * std::log(10.0))
                           : 0.0;
  Row row;
  row.setting = fmt::format("{} (noise-free), ε² = ‖x₀ − x*‖²·10^{{−1}} … 10^{{−6}}", name);
  row.predicted = fmt::format(
      "at the smallest ε Local GD needs ≥ GD's rounds; its rounds grow like 1/ε (slope ≥ {})",
      kSlopeFloor);
  row.measured = fmt::format(
      "at ε² = 10^−6·‖x₀ − x*‖²: GD {:g}, Local GD {:g} (H = {}); slope {:.2f}; local steps save "
      "rounds at {}",
      gd, best[last], best_h[last], slope,
      saves.empty() ? "no ε" : fmt::format("{}", fmt::join(saves, ", ")));
  row.passed = no_advantage_at_end && slope >= kSlopeFloor;
  row.data = {{"H", kLocalSteps},
              {"per_epsilon", table},
              {"slope_last_decade", slope},
              {"local_saves_down_to_k", saves_down_to}};
  if (plot != nullptr) {
    for (std::size_t i = 0; i < kLocalSteps.size(); ++i) {
      std::vector<double> x, y;
      for (std::size_t j = 0; j < eps2.size(); ++j) {
        if (per_h[i].gradients[j] <= 0) continue;
        x.push_back(kAccuracies[j]);
        y.push_back(per_h[i].gradients[j]);
      }
      plot->series.push_back({kLocalSteps[i] == 1 ? std::string("GD (H = 1)")
                                                  : fmt::format("Local GD, H = {}", kLocalSteps[i]),
                              x, y, "linespoints"});
    }
  }
  kit::gate_exact(row, "slope_last_decade", slope);
  return row;
}

}  // namespace

ClaimResult local_gd_myth(const Context& ctx, const ProblemTransform& erm) {
  ClaimResult out;
  const auto& small = as_quadratic(default_quadratic_problems().front());
  const auto& generated = default_quadratic_problems()[1];
  PlotSpec plot{
      fmt::format("{} without noise: communication rounds to ε, γ best for each H", generated.name),
      "k  (ε² = ‖x₀ − x*‖²·10^{−k})",
      "rounds",
      false,
      true,
      false,
      {}};
  out.rows.push_back(myth_row("q-small", erm(small), nullptr));
  out.rows.push_back(myth_row("hetero-4", erm(heterogeneous_speedup_problem(4)), nullptr));
  out.rows.push_back(myth_row(generated.name, erm(as_quadratic(generated)), &plot));
  std::vector<std::string> ends;
  for (const auto& r : out.rows) {
    ends.push_back(fmt::format("10^−{} ({})", r.data["local_saves_down_to_k"].get<int>(),
                               r.setting.substr(0, r.setting.find(' '))));
  }
  out.breaks_at =
      fmt::format("local steps save rounds down to ε² = ‖x₀ − x*‖²·{}", fmt::join(ends, ", "));
  kit::add_figure(ctx, plot, "local-gd-myth.svg",
                  "Exact communication rounds of Local GD (FedAvg with full local gradients) to "
                  "reach ε, γ chosen best for each H: local steps win at moderate ε; as ε → 0 "
                  "their heterogeneity bias forces γ ∝ ε and GD (H = 1) wins by an order of "
                  "magnitude.",
                  out);
  return out;
}

namespace {

ClaimResult run(const Context& ctx) { return local_gd_myth(ctx, noise_free); }

const bool registered = register_claim({.id = kId,
                                        .order = {Section::personalised, 5},
                                        .card = kCard,
                                        .values = {{"slope", kSlopeFloor}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace
}  // namespace fedverify::claims::personalised
