// The two halves of claim personalised.l2gd-rate (its card and run: l2gd_rate.cpp): the exact rows
// on the quadratic (l2gd_rate_exact.cpp) and the simulated rows on the logistic regression
// (l2gd_rate_simulated.cpp), and the constants both halves and the card use.
#pragma once

#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/personalised/personalised.hpp"

namespace fedverify::claims::personalised {

// The claim's id (the simulated rows' seeds are hashed from it).
inline constexpr const char* kL2gdRateId = "personalised.l2gd-rate";

// False-alarm level of the simulated (logistic) part of the rate claim; the quadratic part and the
// communication claim are exact.
inline constexpr double kRateAlpha = 1e-3;

// Round-off allowance of the exact recursion against the bound: the independent NumPy
// implementation agrees with theory::L2gdMeanSquare to 6e-14 relative (docs/THEORY-L2GD-notes), so
// a ratio above 1 + 1e-12 is a violation, not round-off.
inline constexpr double kRoundOffRatio = 1e-12;

// Iterations of the exact recursion checked against the bound.
inline constexpr int kExactIterations = 3000;

// α as multiples of α_max inside the theorem (both halves).
inline const std::vector<double> kInsideFactors = {0.25, 1.0};

// The rows of the quadratic (exact E‖x^k − x(λ)‖², theory::L2gdMeanSquare) and of the logistic
// regression (simulated L2GD), appended to `out`.
void exact_rate_rows(const Context& ctx, const L2gdBound& bound, ClaimResult& out);
void simulated_rate_rows(const Context& ctx, const L2gdBound& bound, ClaimResult& out);

}  // namespace fedverify::claims::personalised
