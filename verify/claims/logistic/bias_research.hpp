// The research grid of the b_s claims (docs/STUDIES.md): FedAvg's and Scaffold's first-order
// bias on the research-sized real-data problem lr-breast-cancer (d = 31, N = 10, and the same
// clients twice, N = 20), each row within 5 % of ‖b_s‖, its runs sized by Stein's two-stage rule
// (budget_plan.hpp). Shared by logistic.fedavg-bias-research and logistic.scaffold-bias-research.
#pragma once

#include <string_view>

#include "theory/problems/algorithm.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::logistic::research {

inline constexpr int kH = 2;
// FedAvg's Richardson combination at H = 2 leaves a remainder that falls roughly like γ² (7.8, 2.7
// and 1.0 % of ‖β₁‖ for γL = (0.5, 1), (0.25, 0.5), (0.125, 0.25)); the smallest pair costs twice
// the rounds of the middle one per autocorrelation time.
inline constexpr double kGammaL = 0.125;
// The H = 1 pair (SGD, where FedAvg and Scaffold coincide) at the same γH.
inline constexpr double kSgdGammaL = kH * kGammaL;
inline constexpr double kMargin = 0.05;
inline constexpr int kTests = 3;
// Budgets, in multiples of the standard control-variate budget (logistic/measurement.hpp): a pilot
// at kPilotFactor on its own seeds, then the main run at the factor that brings every row's MDE to
// δ + δ/2 (stein_budget_plan), at most kCapFactor. Measured for FedAvg: at 2× the rows' MDEs were
// 8–10 % of the gap (δ = 5 %), and the plan asked for 6.71× (≈ 15 CPU-minutes). The quick grid
// runs kQuickFactor without a pilot.
inline constexpr double kPilotFactor = 0.5;
inline constexpr double kCapFactor = 8.0;
inline constexpr double kQuickFactor = 0.5;

// The three rows of `algorithm` (fedavg or scaffold) at H = kH: β₁ itself against "no b_s",
// β₁(N = 10) − 2β₁(N = 20) against "b_s not ∝ 1/N", β₁(H = kH) − β₁(H = 1) against "b_s ∝ H",
// each within kMargin of the distance to the alternative on every coordinate (decide.hpp (e),
// α = kFamilyAlpha/kTests per row). Row seeds are named by `claim_id`; the pilot's by
// "<claim_id> (pilot)".
// Registers the opt-in research claim `id` of `algorithm` at `position` of the logistic section,
// with `card`, whose placeholders are h, gamma_l, sgd_gamma_l, pilot_times, cap_times,
// quick_times (autocorrelation times per chain), alpha_per_test and margin_percent; it runs
// run_bias_research. Returns register_claim's value.
bool register_bias_research(const char* id, int position, std::string_view card,
                            theory::Algorithm algorithm);

ClaimResult run_bias_research(const Context& ctx, theory::Algorithm algorithm,
                              const char* claim_id);

}  // namespace fedverify::claims::logistic::research
