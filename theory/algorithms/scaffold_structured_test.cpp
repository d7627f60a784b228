// The structured solve of Scaffold's exact moments (THEORY S6a, scaffold_structured.hpp) against
// the dense Helmert-basis solve of THEORY (S6) (scaffold_exact_dense) on random problems:
// several (d, N), heterogeneous and identical Hessians, random noise covariances, step sizes on
// both sides of γHL = 1 (the two ways of computing the spectral radius).
//
// Tolerance: both solves are backward stable for the Lyapunov operator 𝓛(S) = S − MSMᵀ, whose
// condition number on the stacked state is bounded by κ = ‖T‖²/(1 − ρ²) with T the change of
// coordinates (x, ξ) ↦ (x, w = γHξ) and its inverse (‖T‖‖T⁻¹‖ ≤ max(γH, 1/(γH)) + 1), ρ the
// spectral radius; each is then accurate to ≈ s·ε·κ relative (s = d(N + 1)), and the two agree to
// kSafety·s·ε·κ. The radii agree to kSafety·s·ε (absolute; both backward-stable eigenvalue
// computations of a matrix of norm O(1)), and the mean (a closed form against a linear solve) to
// kSafety·s·ε·cond(I − M).
#include "theory/algorithms/scaffold_structured.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/problems/generators.hpp"

namespace fedverify {
namespace {

using verify::kEps;
using verify::kSafety;
using verify::relative_error;

theory::QuadraticProblem problem(int d, int n, double spread, std::uint64_t seed) {
  return theory::generate_quadratic(
      {.dim = d, .clients = n, .condition = 10.0, .hessian_spread = spread, .seed = seed});
}

struct Case {
  int d;
  int n;
  double spread;  // 1: independent client Hessians; 0: identical ones
  double gamma_l;
  int h;
};

TEST(ScaffoldStructured, EqualsTheDenseSolveOnRandomProblems) {
  const Case cases[] = {
      {1, 2, 1.0, 0.1, 3},   {2, 3, 1.0, 0.05, 1},   {3, 7, 1.0, 0.1, 5},
      {3, 7, 1.0, 0.01, 20}, {5, 20, 1.0, 0.1, 5},   {4, 40, 1.0, 0.02, 10},
      {3, 6, 0.0, 0.1, 4},   {2, 10, 0.5, 0.001, 2}, {4, 8, 1.0, 0.3, 10},  // γHL = 3
      {3, 5, 1.0, 0.9, 3},                                                  // γHL = 2.7
  };
  std::uint64_t seed = 1;
  for (const Case& c : cases) {
    const auto q = problem(c.d, c.n, c.spread, seed++);
    const theory::RunSetting s{c.gamma_l / q.smoothness(), c.h};
    const auto dense = theory::scaffold_exact_dense(q, s);
    const auto fast = theory::scaffold_exact_structured(q, s);
    const double size = static_cast<double>(c.d) * (c.n + 1);
    const double gh = s.gamma * s.local_steps;
    const double t = std::max(gh, 1.0 / gh) + 1.0;
    const double kappa = t * t / (1.0 - dense.spectral_radius * dense.spectral_radius);
    const double cov_err = relative_error(fast.cov, dense.cov);
    const double mean_err = relative_error(fast.mean, dense.mean);
    const double radius_err = std::abs(fast.spectral_radius - dense.spectral_radius);
    fmt::print(
        "d={} N={} spread={} γL={} H={}: ρ={:.6f} cov {:.2e} mean {:.2e} ρ {:.1e} (κ={:.1e})\n",
        c.d, c.n, c.spread, c.gamma_l, c.h, dense.spectral_radius, cov_err, mean_err, radius_err,
        kappa);
    EXPECT_LE(cov_err, kSafety * size * kEps * kappa);
    EXPECT_LE(mean_err, kSafety * size * kEps * kappa);
    EXPECT_LE(radius_err, kSafety * size * kEps);
    EXPECT_EQ(fast.cov.rows(), dense.cov.rows());
    EXPECT_LE(std::abs(theory::scaffold_spectral_radius_structured(q, s) - fast.spectral_radius),
              kSafety * size * kEps);
  }
}

// At small γ the x block (Cov(x) = O(γ/N), against O(1) for the ξ blocks) is where the two solves
// differ: the dense solve of the stacked divided form is backward stable for the whole matrix,
// so its x block carries an error ≈ ε·‖Σ‖/‖Σ_xx‖ (2e-8 relative at γL = 1e-4, H = 1), whereas
// (S6a) solves the x block in its own scale. Reference: the Kronecker form of the same reduced
// equation D X + X Dᵀ − γ D X Dᵀ = G (from scaffold_round_map, Helmert basis) in long double
// (64-bit mantissa): it solves the double-rounded D and G almost exactly, so it differs from the
// true x block by the effect of rounding D and G, ≲ s·ε·cond(D_r) relative (cond(D_r) ≈ 1/(γHμ):
// the client blocks of D are O(1/(γH)), its slow modes O(μ)). The structured x block must agree
// with it to kSafety·s·ε·cond(D_r); the dense one is printed for comparison (it exceeds that
// bound at γL = 1e-4).
TEST(ScaffoldStructured, XBlockAtSmallGammaMatchesAnExtendedPrecisionSolve) {
  using Long = long double;
  using LongMatrix = Eigen::Matrix<Long, Eigen::Dynamic, Eigen::Dynamic>;
  using LongVector = Eigen::Matrix<Long, Eigen::Dynamic, 1>;
  for (const auto& [gamma_l, h] : {std::pair{1e-3, 2}, std::pair{1e-4, 1}}) {
    const int d = 2;
    const int n = 6;
    const auto q = problem(d, n, 1.0, 11);
    const theory::RunSetting s{gamma_l / q.smoothness(), h};
    const auto map = theory::scaffold_round_map(q, s);
    const Matrix helmert = theory::helmert_basis(n);
    const int full = d * (n + 1);
    const int r = d * n;
    LongMatrix e = LongMatrix::Zero(full, r);
    for (int i = 0; i < d; ++i) e(i, i) = 1;
    for (int c = 0; c < n; ++c) {
      for (int k = 0; k + 1 < n; ++k) {
        for (int i = 0; i < d; ++i) e(d * (1 + c) + i, d * (1 + k) + i) = helmert(c, k);
      }
    }
    const LongMatrix dr = e.transpose() * map.d.cast<Long>() * e;
    const LongMatrix gr = e.transpose() * map.g.cast<Long>() * e;
    const Long gamma = s.gamma;
    LongMatrix kron(r * r, r * r);  // vec(D X + X Dᵀ − γ D X Dᵀ), column-major vec
    for (int a = 0; a < r; ++a) {
      for (int b = 0; b < r; ++b) {
        for (int i = 0; i < r; ++i) {
          for (int j = 0; j < r; ++j) {
            kron(a * r + i, b * r + j) =
                (a == b ? dr(i, j) : 0) + (i == j ? dr(a, b) : 0) - gamma * dr(a, b) * dr(i, j);
          }
        }
      }
    }
    const LongVector x = kron.partialPivLu().solve(Eigen::Map<const LongVector>(gr.data(), r * r));
    const LongMatrix reference = e * Eigen::Map<const LongMatrix>(x.data(), r, r) * e.transpose();
    const Matrix ref_xx = reference.topLeftCorner(d, d).cast<double>();
    const auto fast = theory::scaffold_exact_structured(q, s);
    const auto dense = theory::scaffold_exact_dense(q, s);
    const double fast_err = relative_error(fast.x_cov(), ref_xx);
    const double dense_err = relative_error(dense.x_cov(), ref_xx);
    fmt::print("γL={} H={}: x block vs long double: structured {:.2e}, dense {:.2e}\n", gamma_l, h,
               fast_err, dense_err);
    const double cond = verify::condition_number(Matrix(dr.cast<double>()));
    fmt::print("  cond(D_r) = {:.2e}, bound {:.2e}\n", cond, kSafety * full * kEps * cond);
    EXPECT_LE(fast_err, kSafety * full * kEps * cond);
  }
}

TEST(ScaffoldStructured, RefusesANonContractingStep) {
  const auto q = problem(3, 4, 1.0, 7);
  const theory::RunSetting s{3.0 / q.smoothness(), 5};
  EXPECT_THROW(theory::scaffold_exact_structured(q, s), InputError);
  EXPECT_GE(theory::scaffold_spectral_radius_structured(q, s), 1.0);
}

}  // namespace
}  // namespace fedverify
