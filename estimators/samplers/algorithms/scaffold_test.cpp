// Scaffold's round (estimators/samplers/algorithms/scaffold.hpp): the invariant Σ_c ξ_c = 0 of
// THEORY (S0) and the stacked state's layout. The planted Scaffold bugs run in
// verify/scaffold_planted_engine_test.cpp (a samplers test does not include verify/).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "estimators/samplers/algorithms/scaffold.hpp"
#include "estimators/samplers/chains.hpp"
#include "estimators/samplers/testing/sampler_options.hpp"
#include "estimators/samplers/testing/scaffold_variates.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::estimators {
namespace {

using theory::Algorithm;
using verify::kEps;
using verify::max_abs_control_variate;
using verify::max_abs_sum_of_control_variates;
using verify::options;
using verify::quadratic;

// Statement (S0): the update preserves Σ_c ξ_c = 0 when the ξ_c start at 0.
// Decision: after T = 50 rounds, ‖Σ_c ξ_c‖∞ ≤ 8·N·T·ε·max|ξ| (each round adds a few roundings
// of size ε·max|ξ| per client to the conserved sum).
TEST(Engine, ScaffoldPreservesTheSumOfControlVariates) {
  const int n = 4, rounds = 50;
  const auto q = quadratic(3, n, 1.0);
  ChainEnsemble e(q, options(Algorithm::scaffold, 0.1, 3), Vector::Zero(3), 24);
  e.advance(rounds, 2, {});
  const double tol = 8.0 * n * rounds * kEps * max_abs_control_variate(e);
  const double sum = max_abs_sum_of_control_variates(e);
  fmt::print("Scaffold: max |sum_c xi_c| = {:.3g} (bound {:.3g}), max |xi| = {:.3g}\n", sum, tol,
             max_abs_control_variate(e));
  EXPECT_LE(sum, tol);
  EXPECT_GT(max_abs_control_variate(e), 0.1);  // the invariant is not trivially satisfied
  // The stacked state has the layout of theory::scaffold_exact: (x, ξ_1, …, ξ_N).
  const Matrix z = e.stacked_state();
  EXPECT_EQ(z.topRows(3), e.state());
  EXPECT_EQ(z.middleRows(3 * (1 + 2), 3), scaffold_correction(e, 2));
}

}  // namespace
}  // namespace fedverify::estimators
