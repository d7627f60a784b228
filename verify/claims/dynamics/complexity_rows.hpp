// The rows of a gradient-complexity claim on simulated curves (simulated_complexity.hpp; claim
// dynamics.gradient-complexity-logistic holds its card, problems and grid): per method, the slopes
// of the count in N and in ε over the count bands plus the γ grid's allowance
// (estimators::slope_range), N_end, the table and the figure's series; and the row of the
// control variate's assumption (the twin follows its exact law).
#pragma once

#include <string>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/dynamics/complexity.hpp"
#include "verify/claims/dynamics/simulated_complexity.hpp"

namespace fedverify::claims::dynamics {

// The claim's grid: the search's setting, the clients N (the slopes use the first three), the ε²
// (ascending index, descending ε), E_ref and the bands' z.
struct ComplexityGrid {
  ComplexitySetting setting;
  SimulatedSearch search;
  std::vector<int> ns;
  std::vector<double> eps2;
  double e_ref = 0, z = 0;
};

// The decision's constants: α, the slopes' margin, the low end of the slope in ε, and the twin's
// equivalence margin.
struct ComplexityRule {
  double alpha = 0.01, slope_margin = 0.15, epsilon_slope_low = -2.5, twin_margin = 0.02;
};

// "E_ref/4^{j+1}".
std::string epsilon_name(std::size_t j);

// The row of method `m` from its searches over N (per_n in the order of g.ns); adds its series to
// `plot` and returns N_end per ε (ascending ε index) for the breaks line.
std::vector<std::string> method_row(const ComplexityGrid& g, const ComplexityRule& r,
                                    ComplexityMethod m,
                                    const std::vector<SimulatedComplexity>& per_n, PlotSpec& plot,
                                    ClaimResult& out);

// The control variate's assumption: the curves' twin gaps pooled (estimators::pooled_mean) are 0
// (z test at r.alpha, TOST within ±r.twin_margin).
void twin_row(const std::vector<SimulatedComplexity>& all, int chains, const ComplexityRule& r,
              ClaimResult& out);

}  // namespace fedverify::claims::dynamics
