// The cases of claim dynamics.finite-time-bounds (finite_time_bounds.cpp holds its card, its
// grid and its figures): one case is a problem, an algorithm and a setting; evaluating it gives
// the curve E‖x_t − x*‖² (exact or simulated, bound_ratio.hpp) against the seed's bound, and the
// rows are the fit of the constant C on the training cases and its test on the held-out ones.
#pragma once

#include <string>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "verify/claims/claim.hpp"
#include "verify/claims/dynamics/bound_ratio.hpp"
#include "verify/claims/dynamics/dynamics.hpp"

namespace fedverify::claims::dynamics::finite_time {

inline constexpr const char* kFiniteTimeBoundsId = "dynamics.finite-time-bounds";

struct Case {
  std::string problem_name;
  const theory::Problem* problem = nullptr;
  double gamma_l = 0;
  int h = 1;
  std::string label() const;
};

struct Evaluated {
  Case c;
  theory::Algorithm a{};
  BoundInputs in;
  int rounds = 0;
  MseCurve curve;
  theory::FiniteTimeBound bound;
  BoundRatio ratio;
};

// Held-out rows' chains (simulated curves): 64 (quick) or 512.
int simulated_chains(const Context& ctx);

// The case's curve from x₀ = x* + (2/√d)·1 over T = ⌈8/(Hγλ_min(𝐇))⌉ rounds, its bound (the
// constants computed on the problem) and their ratio.
Evaluated evaluate(const Context& ctx, const Case& c, theory::Algorithm a,
                   const FiniteTimeBoundFormula& formula);

// Training: the smallest C over the training curves of `a`, appended as one row; returns C.
double fit_row(const std::vector<Evaluated>& training, theory::Algorithm a, ClaimResult& out);

// A held-out case against C (bound_ratio.hpp's decision at `alpha`), appended as one row.
void held_out_row(const Evaluated& e, double c, double alpha, ClaimResult& out);

// Where the fitted bound stops holding on `p` (hetero-4) at H = 4 as γHL grows from 0.4 to 8: the
// first γHL whose largest ratio exceeds C (the scan goes to `scan`), in one phrase.
std::string breaks_scan(const Context& ctx, const theory::Problem& p, theory::Algorithm a, double c,
                        const FiniteTimeBoundFormula& formula, nlohmann::json& scan);

}  // namespace fedverify::claims::dynamics::finite_time
