// The warning of `fedverify predict` when its first-order prediction is used far outside the
// range where it means anything (issue 31 item 5; docs/CLI.md, "predict: validity warning").
//
// The first-order fields (mean_first_order, bias_heterogeneity, cov_first_order, …) come from
// expanding the H local steps of a round in γ: the local map (I − γ∇²f)^H = I − γH∇²f + R with
// ‖R‖ ≤ (γHL)²/2 · e^{γHL} (L the smoothness constant), so the neglected terms are about γHL/2
// times the kept ones. At γHL = 1 they are half the prediction, beyond it larger: the
// "prediction" is no longer one (predict with H = 10⁹ printed a first-order mean of 1.5e7 and
// exited 0). predict therefore writes one warning line on stderr when γHL > kMaxGammaHL — the
// JSON on stdout is unchanged, and so is the exit code: the numbers are what the formula gives,
// the warning says not to read them as the algorithm's behaviour. For quadratic problems the
// warning points to mean_exact and cov_exact, which hold at every γ with a stationary law.
// Chain-family algorithms only (fedavg, scaffold, fedrr, sgd, fedopt): the games' and L2GD's
// closed forms have their own step conditions, checked where they are computed.
#pragma once

#include <string>

#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::reports {

inline constexpr double kMaxGammaHL = 1.0;

// The warning line (without "fedverify: "), or an empty string when γHL ≤ kMaxGammaHL.
std::string first_order_validity_warning(const theory::Problem& problem,
                                         const theory::RunSetting& step);

}  // namespace fedverify::reports
