// Claim optimisers.server-stability (THEORY O2, stability).
// Its card (kCard, format in verify/claims/card.hpp) states the theorem, the formula, the
// setting, the decision rule and a sample row, and is what the report prints.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "theory/algorithms/fedopt.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/optimisers/common.hpp"
#include "verify/claims/optimisers/optimisers.hpp"
#include "verify/claims/problems/default_problems.hpp"

namespace fedverify::claims::optimisers {
namespace {

constexpr const char* kId = "optimisers.server-stability";

constexpr const char* kCard = R"(
Summary: Server heavy-ball and Nesterov momentum contract exactly below a closed-form step limit.
Statement: With full participation the server's heavy-ball or Nesterov iteration contracts exactly
  when the server step is below a closed-form limit in β and the largest eigenvalue of the averaged
  client map (derived here).
Formula: heavy ball γη_g d_max < 2(1 + β); Nesterov γη_g d_max < 2(1 + β)/(1 + 2β);
  D̄ = (1/N) Σ_c P_c A_c (d_max its largest eigenvalue, ≈ H·L at small γ)
THEORY: (O2)
Setting: the default quadratic problems q-small and q-gen5; --algo fedopt, client sgd, H = 5,
  γL = ${gamma_l}; heavy ball and Nesterov with β ∈ {0, 0.5, 0.9} (and 0.3, 0.99 on the full grid).
  Spectral radius ρ of the exact round map on (x, m) (theory/algorithms/fedopt.hpp).
Decision: at η_g = (1 ∓ ${delta}) × the limit: ρ < 1 just below and ρ > 1 just above (ρ moves by
  ≈ δ/(1 − β) across the limit, far beyond its round-off of ~1e-13)
Sample row:
  | q-gen5, H = 5, Nesterov β = 0.5 | ρ < 1 below, > 1 above η_g = 3.21 | 0.999999 / 1.000001 | ✅ |
Notes: In γHL terms: d_max ≤ H·L when γ(L + μ_p) ≤ 1, so η_g γ H L < 2(1 + β) (heavy ball) is
  sufficient; the note gives d_max/(HL) on each problem.
)";

constexpr int kLocalSteps = 5;
constexpr double kGammaL = 0.05;
constexpr double kDelta = 1e-6;

std::vector<double> momenta(bool quick) {
  return quick ? std::vector<double>{0.0, 0.5, 0.9} : std::vector<double>{0.0, 0.3, 0.5, 0.9, 0.99};
}

ClaimResult run(const Context& ctx) {
  return run_server_stability(ctx, theory::fedopt_server_step_limit);
}

const bool registered = register_claim({.id = kId,
                                        .order = {Section::optimisers, 2},
                                        .card = kCard,
                                        .values = {{"gamma_l", kGammaL}, {"delta", kDelta}},
                                        .alpha = 0,
                                        .run = run});

}  // namespace

ClaimResult run_server_stability(const Context& ctx, const ServerStepLimit& limit) {
  ClaimResult out;
  PlotSpec figure{"Largest stable server step η_g against β (q-gen5, H = 5, γL = 0.05)",
                  "server momentum β",
                  "η_g limit",
                  false,
                  true,
                  false,
                  {}};
  std::string ratios;
  for (const auto& np : default_quadratic_problems()) {
    const auto& q = as_quadratic(np);
    const double gamma = kGammaL / q.smoothness();
    for (const bool nesterov : {false, true}) {
      std::vector<double> betas, limits;
      for (const double beta : momenta(ctx.options.quick)) {
        const std::string variant =
            fmt::format("{} β = {:g}", nesterov ? "Nesterov" : "heavy ball", beta);
        const double eta =
            limit(q, fedopt_setting(gamma, kLocalSteps, server_sgd_option(1.0, beta, nesterov)));
        const double below = server_round_radius(
            q, fedopt_setting(gamma, kLocalSteps,
                              server_sgd_option(eta * (1 - kDelta), beta, nesterov)));
        const double above = server_round_radius(
            q, fedopt_setting(gamma, kLocalSteps,
                              server_sgd_option(eta * (1 + kDelta), beta, nesterov)));
        Row row;
        row.setting = fmt::format("{}, H = {}, {}", np.name, kLocalSteps, variant);
        row.predicted = fmt::format("ρ < 1 below, > 1 above η_g = {:.4g}", eta);
        row.measured = fmt::format("{:.7f} / {:.7f}", below, above);
        row.passed = below < 1.0 && above > 1.0;
        row.data = {{"eta_limit", eta}, {"rho_below", below}, {"rho_above", above}};
        kit::gate_exact(row, "eta_limit", eta);
        out.rows.push_back(std::move(row));
        betas.push_back(beta);
        limits.push_back(eta);
      }
      if (&np == &default_quadratic_problems().back()) {
        figure.series.push_back(
            {nesterov ? "Nesterov" : "heavy ball", betas, limits, "linespoints"});
      }
    }
    // d_max/(HL): the limit of heavy ball at β = 0 is 2/(γ d_max).
    const double eta0 = limit(q, fedopt_setting(gamma, kLocalSteps, "sgd"));
    ratios += fmt::format("{}{}: d_max/(HL) = {:.4f}", ratios.empty() ? "" : "; ", np.name,
                          2.0 / (eta0 * gamma) / (kLocalSteps * q.smoothness()));
  }
  out.note = "Every limit separates contraction from expansion to 1e-6 in η_g. " + ratios + ".";
  kit::add_figure(ctx, figure, "server-stability.svg",
                  "Largest stable server step against server momentum (q-gen5, H = 5, γL = 0.05): "
                  "2(1 + β)/(γ d_max) for heavy ball, 2(1 + β)/((1 + 2β) γ d_max) for Nesterov.",
                  out);
  return out;
}

}  // namespace fedverify::claims::optimisers
