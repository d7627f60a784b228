// Tests of DP-FedAvg's binding-clip first order (THEORY A5c): the clamped-Gaussian moments
// against quadrature, the κ → ∞ limit against (A5) in one dimension, and the symmetric case.
#include "theory/algorithms/dpfedavg_clip.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "theory/base/input_error.hpp"
#include "theory/problems/dpfedavg_setting.hpp"

namespace fedverify::theory {
namespace {

// Composite Simpson on each of the smooth pieces [mu − 12 sd, −κ], [−κ, κ], [κ, mu + 12 sd] (the
// clamp's kinks are piece ends), 4000 panels each: error ≈ (len)⁵/(180 n⁴)·max|f⁗| < 1e-12, and
// the tails beyond 12 sd are below 1e-30.
double simpson(const std::function<double(double)>& f, double lo, double hi) {
  if (!(hi > lo)) return 0.0;
  const int n = 4000;
  const double h = (hi - lo) / n;
  double sum = f(lo) + f(hi);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(lo + i * h);
  return sum * h / 3.0;
}

ClampedMoments by_quadrature(double mu, double var, double kappa) {
  const double sd = std::sqrt(var), lo = mu - 12 * sd, hi = mu + 12 * sd;
  const auto dens = [&](double g) {
    return std::exp(-0.5 * (g - mu) * (g - mu) / var) / std::sqrt(2 * std::numbers::pi * var);
  };
  const double a = std::clamp(-kappa, lo, hi), b = std::clamp(kappa, lo, hi);
  const double below = simpson(dens, lo, a), above = simpson(dens, b, hi);
  const double inside = simpson(dens, a, b);
  const double m1 =
      -kappa * below + kappa * above + simpson([&](double g) { return g * dens(g); }, a, b);
  const double m2 =
      kappa * kappa * (below + above) + simpson([&](double g) { return g * g * dens(g); }, a, b);
  return {m1, m2 - m1 * m1, inside};
}

TEST(DpfedavgClip, ClampedGaussianMomentsMatchQuadrature) {
  for (auto [mu, var, kappa] :
       {std::tuple{0.3, 0.5, 0.7}, {-1.2, 0.25, 0.5}, {2.0, 1.0, 3.0}, {0.0, 4.0, 1.0}}) {
    const ClampedMoments exact = clamped_gaussian_moments(mu, var, kappa);
    const ClampedMoments quad = by_quadrature(mu, var, kappa);
    EXPECT_NEAR(exact.mean, quad.mean, 1e-11) << mu;
    EXPECT_NEAR(exact.variance, quad.variance, 1e-11) << mu;
    EXPECT_NEAR(exact.inside, quad.inside, 1e-11) << mu;
  }
}

QuadraticProblem line(const std::vector<double>& a, const std::vector<double>& b, double s2) {
  std::vector<QuadraticClient> clients;
  for (std::size_t c = 0; c < a.size(); ++c)
    clients.push_back(
        {Matrix::Constant(1, 1, a[c]), Vector::Constant(1, b[c]), Matrix::Constant(1, 1, s2)});
  return QuadraticProblem(std::move(clients));
}

RunSetting clipped(double gamma, int steps, double sigma, double clip) {
  RunSetting s{gamma, steps};
  s.parameters[std::string(kDpNoiseKey)] = {sigma};
  s.parameters[std::string(kClipKey)] = {clip};
  return s;
}

// A clip that never binds (κ = 1e6): x_κ = x* = Σ a_c b_c / Σ a_c (equal weights) and the variance
// is (A5) in one dimension, γ(1/N²)Σ s²/(2ā) + σ²/(2γHā).
TEST(DpfedavgClip, WithoutABindingClipItIsA5InOneDimension) {
  const QuadraticProblem q = line({1.0, 2.0, 0.5, 1.5}, {-1.0, 0.5, 2.0, 0.0}, 0.8);
  const double gamma = 0.01, sigma = 0.003;
  const int h = 4;
  const DpClipFirstOrder f =
      dpfedavg_clip_first_order(q, clipped(gamma, h, sigma, 1e6 * gamma * h));
  const double abar = (1.0 + 2.0 + 0.5 + 1.5) / 4;
  const double x_star = (-1.0 + 1.0 + 1.0 + 0.0) / (4 * abar);
  EXPECT_NEAR(f.mean, x_star, 1e-13);
  EXPECT_NEAR(f.contraction, abar, 1e-13);
  const double var = gamma * (4 * 0.8 / 16) / (2 * abar) + sigma * sigma / (2 * gamma * h * abar);
  EXPECT_NEAR(f.variance, var, 1e-12 * var);
}

// Clients symmetric about 0 (mirror pairs): the clip moves nothing, x_κ = 0; an asymmetric
// problem is moved towards the clients whose pull the clip does not cut.
TEST(DpfedavgClip, ClippingBiasVanishesBySymmetryOnly) {
  const QuadraticProblem sym = line({1.0, 1.0, 3.0, 3.0}, {-1.0, 1.0, -0.5, 0.5}, 0.5);
  EXPECT_NEAR(dpfedavg_clip_first_order(sym, clipped(0.01, 4, 0.0, 0.3 * 0.04)).mean, 0.0, 1e-14);
  const QuadraticProblem q = line({1.0, 2.0, 0.5, 1.5}, {-1.0, 0.5, 2.0, 0.0}, 0.8);
  const double x_star = 0.2;  // Σ a b / Σ a = 1/5
  const DpClipFirstOrder f = dpfedavg_clip_first_order(q, clipped(0.01, 4, 0.0, 0.5 * 0.04));
  EXPECT_GT(std::abs(f.mean - x_star), 0.05);
  EXPECT_LT(f.contraction, 1.25);  // J < ā: clipped clients stop pulling
  EXPECT_THROW(dpfedavg_clip_first_order(q, RunSetting{0.01, 4}), InputError);
}

}  // namespace
}  // namespace fedverify::theory
