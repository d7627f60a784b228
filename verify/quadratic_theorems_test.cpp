// Deterministic theorem checks on quadratic problems with additive Gaussian noise.
//
// On quadratics, FedAvg, Scaffold and FedRR are linear-Gaussian Markov chains whose stationary
// moments are known exactly (theory/closed_forms/exact.hpp, THEORY F5/S6/R2; themselves checked
// against brute-force iteration in theory/algorithms/{fedavg,scaffold,fedrr}_test.cpp). Every check
// below is therefore deterministic: no Monte Carlo error, tolerances come from remainder orders and
// round-off.
//
// Round-off bound used for "exact zeros": a backward-stable solve of an n×n system with
// condition number κ is accurate to ~ n·ε·κ relative; the matrices themselves are sums of H
// powers (relative error ~ Hε). We allow kSafety · (n + H) · ε · κ.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "estimators/statistics/regression.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/kronecker.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::Algorithm;
using theory::QuadraticProblem;
using theory::RunSetting;

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kSafety = 10.0;  // growth factors and input rounding over the n·ε·κ bound

// Level of the slope confidence intervals (two-sided).
constexpr double kSlopeAlpha = 0.01;
// Why 1.5: the claim is "remainder = O(γ²)" on quadratics. A wrong first-order term leaves a
// remainder of order γ (slope 1); the general (non-quadratic) remainder of THEORY (F3)/(S2) has
// a γ^{3/2} part. A lower bound above 1.5 excludes both, while leaving room for the bending of
// the log–log curve at the top of the grid (γHL up to 1), where γ³H³ terms are not negligible.
constexpr double kMinimumSlope = 1.5;

// Geometric grid γL ∈ [1e-4, 1e-1] (L = 1 for generated problems), 13 points (4 per decade).
std::vector<double> gamma_grid() {
  std::vector<double> g;
  for (int i = 0; i <= 12; ++i) g.push_back(1e-4 * std::pow(10.0, i / 4.0));
  return g;
}

const std::vector<int> kLocalSteps = {1, 2, 5, 10};

// Heterogeneous problems: d = 3, N = 4, condition number 10, unit spreads and noise.
theory::QuadraticGeneratorOptions heterogeneous(std::uint64_t seed) {
  return verify::small_options(seed);
}
const std::vector<std::uint64_t> kProblemSeeds = {101, 202, 303};

// Closed-form minimiser x* = (Σ A_c)⁻¹ Σ A_c b_c, independent of theory::minimizer.
Vector closed_form_optimum(const QuadraticProblem& p) {
  Matrix a = Matrix::Zero(p.dim(), p.dim());
  Vector ab = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) {
    a += p.client(c).hessian;
    ab += p.client(c).hessian * p.client(c).optimum;
  }
  return a.ldlt().solve(ab);
}

double hessian_condition(const QuadraticProblem& p) {
  return verify::condition_number(theory::average_hessian(p, Vector::Zero(p.dim())));
}

// Condition number of Scaffold's divided round map restricted to Σ_c ξ_c = 0 (the system
// scaffold_exact solves for its mean), with an orthonormal basis of that subspace from an SVD.
double scaffold_restricted_condition(const QuadraticProblem& p, const RunSetting& s) {
  const int n = p.num_clients(), d = p.dim();
  const Matrix centring = Matrix::Identity(n, n) - Matrix::Constant(n, n, 1.0 / n);
  const Eigen::JacobiSVD<Matrix> svd(centring, Eigen::ComputeFullU);
  const Matrix u = svd.matrixU().leftCols(n - 1);  // range of the centring matrix
  Matrix e = Matrix::Zero(d * (n + 1), d * n);
  e.topLeftCorner(d, d).setIdentity();
  e.bottomRightCorner(d * n, d * (n - 1)) = verify::kron(u, Matrix::Identity(d, d));
  return verify::condition_number(e.transpose() * theory::scaffold_round_map(p, s).d * e);
}

double roundoff_tolerance(int system_size, int local_steps, double kappa_system,
                          double kappa_hessian, double scale) {
  return kSafety * (system_size + local_steps) * kEps * (kappa_system + kappa_hessian) * scale;
}

// Exact second moment about x*, the quantity the first-order covariances describe.
Matrix second_moment_about(const theory::ExactMoments& m, const Vector& x_star) {
  const Vector b = m.mean - x_star;
  return m.cov + b * b.transpose();
}

struct Remainders {
  std::vector<double> mean, cov;
};

Remainders exact_minus_first_order(const QuadraticProblem& p, Algorithm algo, int h,
                                   const std::vector<double>& gammas) {
  const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
  Remainders r;
  for (double g : gammas) {
    const RunSetting s{g, h};
    const theory::ExactMoments exact = theory::exact_moments(p, algo, s);
    const theory::FirstOrderMoments fo = theory::first_order(k, algo, s);
    r.mean.push_back((exact.mean - fo.mean).norm());
    r.cov.push_back((second_moment_about(exact, fo.x_star) - fo.cov).norm());
  }
  return r;
}

// Whether THEORY says the exact mean equals the first-order mean x* exactly on quadratics.
bool mean_is_exact_zero(Algorithm algo, int h) {
  if (algo == Algorithm::scaffold) return true;  // THEORY (S3)
  // §8: FedAvg with H = 1 is SGD on f; FedRR at H = 1 is 2x* − x*.
  if (algo == Algorithm::fedavg || algo == Algorithm::fedrr) return h == 1;
  return false;
}

// ============================================================================================
// Claim: exact − first-order = O(γ²) for the stationary mean and covariance of FedAvg,
// Scaffold and FedRR on quadratics.
//   Setting: 3 generated problems (d = 3, N = 4, κ = 10, heterogeneous Hessians and optima,
//            noise scale 1), H ∈ {1, 2, 5, 10}, γL on a geometric grid from 1e-4 to 1e-1.
//   Prediction: THEORY (F2), (F3), (S2), (S3), (R1), (R2) with remainders O(γ²) (§8).
//   Measurement: ‖exact − first order‖ (Euclidean / Frobenius), exact moments of (F5)/(S6).
//   Decision: the lower bound of the α = 0.01 confidence interval of the log–log slope is
//            > 1.5; where THEORY predicts an exact zero (FedAvg and FedRR means at H = 1,
//            Scaffold's mean) the remainder is below the round-off bound at every γ.
// ============================================================================================
class RemainderOrder : public ::testing::TestWithParam<Algorithm> {};

TEST_P(RemainderOrder, ExactMinusFirstOrderIsSecondOrderInGamma) {
  const Algorithm algo = GetParam();
  const std::vector<double> gammas = gamma_grid();
  for (std::uint64_t seed : kProblemSeeds) {
    const QuadraticProblem p = theory::generate_quadratic(heterogeneous(seed));
    const Vector x_star = closed_form_optimum(p);
    const double kappa_h = hessian_condition(p);
    for (int h : kLocalSteps) {
      std::vector<double> grid;
      for (double g : gammas) {
        // Scaffold's stationarity condition is γHL ≤ 1 (THEORY S1).
        if (algo != Algorithm::scaffold || g * h * p.smoothness() <= 1.0) grid.push_back(g);
      }
      const Remainders r = exact_minus_first_order(p, algo, h, grid);
      // The remainder of `moment` is of second order: its log–log slope's lower bound > 1.5.
      const auto expect_second_order = [&](const char* moment, const std::vector<double>& rem) {
        const auto slope = estimators::fit_log_log_slope(grid, rem, kSlopeAlpha);
        fmt::print(
            "{:8s} seed {} H={:2d}: {:4s} slope {:.3f} [{:.3f}, {:.3f}] (remainder {:.2e} at "
            "γ={:.0e} … {:.2e} at γ={:.2g})\n",
            theory::to_string(algo), seed, h, moment, slope.slope, slope.lower, slope.upper,
            rem.front(), grid.front(), rem.back(), grid.back());
        EXPECT_GT(slope.lower, kMinimumSlope) << moment << ", seed " << seed << " H " << h;
      };
      expect_second_order("cov", r.cov);
      if (mean_is_exact_zero(algo, h)) {
        double worst = 0;
        for (std::size_t i = 0; i < grid.size(); ++i) {
          const RunSetting s{grid[i], h};
          const double kappa_sys = algo == Algorithm::scaffold ? scaffold_restricted_condition(p, s)
                                                               : kappa_h;  // FedAvg H = 1: D = 𝐇
          const int n_sys = algo == Algorithm::scaffold ? p.dim() * p.num_clients() : p.dim();
          const double tol = roundoff_tolerance(n_sys, h, kappa_sys, kappa_h, x_star.norm());
          EXPECT_LE(r.mean[i], tol) << "mean should be x* exactly; γ " << grid[i] << " H " << h;
          worst = std::max(worst, r.mean[i] / tol);
        }
        fmt::print(
            "{:8s} seed {} H={:2d}: mean exact zero, max remainder / round-off bound = "
            "{:.3f}\n",
            theory::to_string(algo), seed, h, worst);
      } else {
        expect_second_order("mean", r.mean);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Quadratic, RemainderOrder,
                         ::testing::Values(Algorithm::fedavg, Algorithm::scaffold,
                                           Algorithm::fedrr),
                         [](const auto& param_info) {
                           return theory::to_string(param_info.param);
                         });

// ============================================================================================
// Claim (S3): Scaffold's exact stationary mean is x* under heterogeneity; FedAvg's is not.
//   Setting: heterogeneous problems, γ = 0.01, H ∈ {2, 5, 10}.
//   Decision: ‖m_scaffold − x*‖ ≤ round-off bound; ‖m_fedavg − x*‖ ≥ 1e3 × that bound.
// ============================================================================================
TEST(ScaffoldMean, EqualsOptimumUnderHeterogeneityWhileFedAvgIsBiased) {
  const double gamma = 0.01;
  for (std::uint64_t seed : kProblemSeeds) {
    const QuadraticProblem p = theory::generate_quadratic(heterogeneous(seed));
    const Vector x_star = closed_form_optimum(p);
    const double kappa_h = hessian_condition(p);
    for (int h : {2, 5, 10}) {
      const RunSetting s{gamma, h};
      const double tol =
          roundoff_tolerance(p.dim() * p.num_clients(), h, scaffold_restricted_condition(p, s),
                             kappa_h, x_star.norm());
      const double scaffold_bias = (theory::scaffold_exact(p, s).x_mean() - x_star).norm();
      const double fedavg_bias = (theory::fedavg_exact(p, s).mean - x_star).norm();
      fmt::print(
          "seed {} H={:2d} γ={}: ‖m−x*‖ scaffold {:.2e}, fedavg {:.2e}; round-off bound "
          "{:.2e}\n",
          seed, h, gamma, scaffold_bias, fedavg_bias, tol);
      EXPECT_LE(scaffold_bias, tol);
      EXPECT_GE(fedavg_bias, 1e3 * tol);
    }
  }
}

// ============================================================================================
// Claim (F3)/(F4): FedAvg's heterogeneity bias vanishes when all client Hessians are equal or
// all client optima are equal, and otherwise equals γ(H − 1) b_h + O(γ²H²).
// ============================================================================================
TEST(FedAvgHeterogeneityBias, VanishesWhenHessiansOrOptimaAreEqual) {
  // With A_c = A: M = (I − γA)^H and r = (I − M) b̄, so m = b̄ = x*. With b_c = b: m = b = x*.
  // Decision: ‖m − x*‖ ≤ round-off bound, at γ = 0.05 and H ∈ {2, 5, 10}.
  for (bool equal_hessians : {true, false}) {
    auto o = heterogeneous(404);
    (equal_hessians ? o.hessian_spread : o.optimum_spread) = 0.0;
    const QuadraticProblem p = theory::generate_quadratic(o);
    const Vector x_star = closed_form_optimum(p);
    const double kappa_h = hessian_condition(p);
    for (int h : {2, 5, 10}) {
      const RunSetting s{0.05, h};
      const auto exact = theory::fedavg_exact(p, s);
      const double kappa_d = verify::condition_number(theory::fedavg_round_map(p, s).d);
      const double tol = roundoff_tolerance(p.dim(), h, kappa_d, kappa_h, x_star.norm());
      const double bias = (exact.mean - x_star).norm();
      fmt::print("equal {}: H={:2d} ‖m−x*‖ = {:.2e} (round-off bound {:.2e})\n",
                 equal_hessians ? "Hessians" : "optima", h, bias, tol);
      EXPECT_LE(bias, tol);
    }
  }
}

TEST(FedAvgHeterogeneityBias, GrowsLinearlyInLocalStepsAtSmallGamma) {
  // Prediction: m − x* = γ(H − 1) b_h + O(γ²H²).
  // Measurement: ratio error ‖(m − x*) − γ(H−1)b_h‖ / ‖γ(H−1)b_h‖ at γ = 1e-4, H ∈ {2, 5, 10}.
  // Decision: ratio error ≤ γ·H·L·κ: the next term of (I − γA_c)^H relative to the first is
  // O(γHL), and solving with 𝐇⁻¹ amplifies it by at most κ = L/μ.
  const double gamma = 1e-4;
  for (std::uint64_t seed : kProblemSeeds) {
    const QuadraticProblem p = theory::generate_quadratic(heterogeneous(seed));
    const Vector x_star = closed_form_optimum(p);
    const Vector b_h =
        theory::heterogeneity_bias_coefficient(p, x_star, theory::average_hessian(p, x_star));
    const double kappa = p.smoothness() / p.strong_convexity();
    for (int h : {2, 5, 10}) {
      const Vector bias = theory::fedavg_exact(p, {gamma, h}).mean - x_star;
      const Vector predicted = gamma * (h - 1) * b_h;
      const double ratio_error = (bias - predicted).norm() / predicted.norm();
      const double tol = gamma * h * p.smoothness() * kappa;
      fmt::print(
          "seed {} H={:2d}: ‖m−x*‖/(γ(H−1)) = {:.6f}, ‖b_h‖ = {:.6f}, ratio error {:.2e} "
          "(tol {:.1e})\n",
          seed, h, bias.norm() / (gamma * (h - 1)), b_h.norm(), ratio_error, tol);
      EXPECT_LE(ratio_error, tol);
    }
  }
}

// ============================================================================================
// Claim (G1): with N = 1 and H = 1, FedAvg is SGD: exact mean x*, exact covariance
// vec Σ_γ = γ(𝐇⊗I + I⊗𝐇 − γ𝐇⊗𝐇)⁻¹ vec C, first-order covariance γ𝒜C with O(γ²) remainder.
// ============================================================================================
TEST(SgdReduction, SingleClientSingleStepIsSgd) {
  auto o = heterogeneous(505);
  o.clients = 1;
  const QuadraticProblem p = theory::generate_quadratic(o);
  const Matrix& h = p.client(0).hessian;
  const Matrix& c = p.client(0).noise_cov;
  const Vector x_star = p.client(0).optimum;
  const double kappa_h = verify::condition_number(h);
  const Matrix i = Matrix::Identity(p.dim(), p.dim());
  std::vector<double> grid = gamma_grid(), remainder;
  for (double g : grid) {
    const auto exact = theory::exact_moments(p, Algorithm::sgd, {g, 1});
    EXPECT_LE((exact.mean - x_star).norm(),
              roundoff_tolerance(p.dim(), 1, kappa_h, kappa_h, x_star.norm()));
    const Matrix kron_cov = verify::kronecker_sgd_covariance(h, c, g);
    const double kappa_k =
        verify::condition_number(verify::kron(h, i) + verify::kron(i, h) - g * verify::kron(h, h));
    EXPECT_LE((exact.cov - kron_cov).norm() / kron_cov.norm(),
              kSafety * p.dim() * p.dim() * kEps * kappa_k);
    remainder.push_back((exact.cov - g * theory::lyapunov_operator(h, c)).norm());
  }
  const auto slope = estimators::fit_log_log_slope(grid, remainder, kSlopeAlpha);
  fmt::print("SGD (N=1, H=1): cov − γ𝒜C slope {:.3f} [{:.3f}, {:.3f}]\n", slope.slope, slope.lower,
             slope.upper);
  EXPECT_GT(slope.lower, kMinimumSlope);
}

// ============================================================================================
// Claim (F1): if γL ≤ 1, the deterministic FedAvg round map contracts with factor
// q = (1 − γμ)^H, and its fixed point is the exact stationary mean (F4 = F5).
//   Measurement: the round map T iterated step by step (local gradient steps, then average)
//   from two random starting points for 60 rounds.
//   Decision: ‖T^{k+1}x − T^{k+1}y‖ ≤ q‖T^k x − T^k y‖ + round-off at every round; after 60
//   rounds, ‖T^k x − m‖ ≤ q^k ‖x − m‖ + round-off.
// ============================================================================================
Vector deterministic_fedavg_round(const QuadraticProblem& p, double gamma, int h, const Vector& x) {
  Vector next = Vector::Zero(p.dim());
  for (int c = 0; c < p.num_clients(); ++c) {
    Vector xc = x;
    for (int step = 0; step < h; ++step) xc -= gamma * p.gradient(c, xc);  // THEORY (F0), no noise
    next += xc / p.num_clients();
  }
  return next;
}

TEST(FedAvgContraction, RoundMapContractsAndConvergesToTheExactMean) {
  estimators::Stream s(606, estimators::Purpose::test);
  for (std::uint64_t seed : kProblemSeeds) {
    const QuadraticProblem p = theory::generate_quadratic(heterogeneous(seed));
    const double mu = p.strong_convexity(), l = p.smoothness();
    for (double gamma_l : {0.1, 0.5, 1.0}) {
      for (int h : {1, 3, 10}) {
        const double gamma = gamma_l / l;
        const double q = std::pow(1.0 - gamma * mu, h);
        const Vector m = theory::fedavg_exact(p, {gamma, h}).mean;
        Vector x(p.dim()), y(p.dim());
        for (int i = 0; i < p.dim(); ++i) {
          x(i) = 10 * s.normal();
          y(i) = 10 * s.normal();
        }
        const Vector x0 = x;
        double worst_factor = 0;
        constexpr int kRounds = 60;
        for (int k = 0; k < kRounds; ++k) {
          const double before = (x - y).norm();
          x = deterministic_fedavg_round(p, gamma, h, x);
          y = deterministic_fedavg_round(p, gamma, h, y);
          // Each local step rounds O(‖x‖ + ‖b‖) quantities: absolute error ~ H·d·ε·scale.
          const double roundoff = kSafety * h * p.dim() * kEps * (x.norm() + y.norm() + m.norm());
          EXPECT_LE((x - y).norm(), q * before + roundoff) << "round " << k;
          if (before > 1e6 * roundoff)
            worst_factor = std::max(worst_factor, (x - y).norm() / before);
        }
        const double distance = (x - m).norm();
        const double bound = std::pow(q, kRounds) * (x0 - m).norm() +
                             kSafety * kRounds * h * p.dim() * kEps * (x0.norm() + m.norm());
        EXPECT_LE(distance, bound);
        EXPECT_LE(theory::fedavg_contraction_factor(p, {gamma, h}), q * (1 + 4 * h * kEps));
        fmt::print(
            "seed {} γL={} H={:2d}: worst measured factor {:.6f} ≤ (1−γμ)^H = {:.6f}; "
            "‖T^60 x − m‖ = {:.2e} ≤ {:.2e}\n",
            seed, gamma_l, h, worst_factor, q, distance, bound);
      }
    }
  }
}

// ============================================================================================
// Open question (S4-cross), settled on quadratics: which sign of the first term of Σ^{x,ξ}
// holds, and in which matrix order? Also the Σ^ξ blocks of (S4).
//   Setting: 2 heterogeneous problems, H ∈ {1, 3}, γ ∈ {1e-3, 1e-4, 1e-5}.
//   Measurement: relative errors ‖exact − candidate‖ / ‖exact‖ of each block, where exact is
//   theory::scaffold_exact (covariances about the stationary mean, which on quadratics is
//   (x*, ξ*) exactly — see ScaffoldMean).
//   Decision: the Σ^ξ prediction has relative error O(γ) → below 100·γ·H·L·κ; of the four
//   candidates (±, as printed / transposed), the one(s) with relative error below the same
//   bound hold, the others are rejected (relative error O(1)). The verdict is printed; the
//   bound 100·γHLκ: the neglected terms are O(γ²H + γ^{3/2}) against a leading O(γ) block,
//   i.e. relative O(γHL) up to the conditioning κ, with a factor 100 for the constants.
// ============================================================================================
TEST(ScaffoldControlVariates, CovarianceBlocksAndTheSignOfTheCrossTerm) {
  double worst_plus = 0, worst_minus = 0, worst_plus_t = 0, worst_minus_t = 0, worst_xi = 0;
  double worst_bound = 0;
  for (std::uint64_t seed : {101, 202}) {
    const QuadraticProblem p = theory::generate_quadratic(heterogeneous(seed));
    const theory::ExpansionCoefficients k = theory::expansion_coefficients(p);
    const double kappa = p.smoothness() / p.strong_convexity();
    for (int h : {1, 3}) {
      for (double gamma : {1e-3, 1e-4, 1e-5}) {
        const RunSetting s{gamma, h};
        const auto exact = theory::scaffold_exact(p, s);
        const auto fo = theory::scaffold_control_variate_first_order(p, k, s);
        double e_xi = 0, e_plus = 0, e_minus = 0, e_plus_t = 0, e_minus_t = 0;
        for (int c = 0; c < p.num_clients(); ++c) {
          for (int c2 = 0; c2 < p.num_clients(); ++c2) {
            const Matrix ex = exact.xi_cov(c, c2);
            e_xi = std::max(e_xi, (ex - fo.cov_xi(c, c2)).norm() / ex.norm());
          }
          const Matrix cross = exact.x_xi_cov(c);
          auto rel = [&](const Matrix& cand) { return (cross - cand).norm() / cross.norm(); };
          e_plus = std::max(e_plus, rel(fo.x_xi_plus[c]));
          e_minus = std::max(e_minus, rel(fo.x_xi_minus[c]));
          e_plus_t = std::max(e_plus_t, rel(fo.x_xi_plus[c].transpose()));
          e_minus_t = std::max(e_minus_t, rel(fo.x_xi_minus[c].transpose()));
        }
        fmt::print(
            "seed {} H={} γ={:.0e}: Σ^ξ rel.err {:.2e}; Σ^(x,ξ) rel.err: plus {:.2e}, "
            "minus {:.2e}, plus (transposed order) {:.2e}, minus (transposed order) "
            "{:.2e}\n",
            seed, h, gamma, e_xi, e_plus, e_minus, e_plus_t, e_minus_t);
        if (gamma == 1e-5) {
          worst_xi = std::max(worst_xi, e_xi);
          worst_plus = std::max(worst_plus, e_plus);
          worst_minus = std::max(worst_minus, e_minus);
          worst_plus_t = std::max(worst_plus_t, e_plus_t);
          worst_minus_t = std::max(worst_minus_t, e_minus_t);
          worst_bound = std::max(worst_bound, 100 * gamma * h * p.smoothness() * kappa);
        }
      }
    }
  }
  fmt::print(
      "(S4) at γ = 1e-5, worst relative errors: Σ^ξ {:.2e}; Σ^(x,ξ) plus {:.2e}, minus "
      "{:.2e}, plus-transposed {:.2e}, minus-transposed {:.2e}; acceptance bound {:.1e}\n",
      worst_xi, worst_plus, worst_minus, worst_plus_t, worst_minus_t, worst_bound);
  EXPECT_LE(worst_xi, worst_bound);
  const bool any = worst_plus <= worst_bound || worst_minus <= worst_bound ||
                   worst_plus_t <= worst_bound || worst_minus_t <= worst_bound;
  EXPECT_TRUE(any) << "no candidate of (S4-cross) matches the exact moments";
  // Verdict (measured, see the report): the MINUS sign in the printed matrix order,
  // Σ^{x,ξ}_(c) = −(γ/N) 𝒜C̄ (∇²f_c(x*) − 𝐇) + (γ/N)(C_c − C̄), holds; the printed plus sign
  // and both transposed orders are off by O(1) relative errors (> 10 × the bound).
  EXPECT_LE(worst_minus, worst_bound);
  EXPECT_GT(worst_plus, 10 * worst_bound);
  EXPECT_GT(worst_plus_t, 10 * worst_bound);
  EXPECT_GT(worst_minus_t, 10 * worst_bound);
  RecordProperty("s4_cross_plus_rel_err", std::to_string(worst_plus));
  RecordProperty("s4_cross_minus_rel_err", std::to_string(worst_minus));
  RecordProperty("s4_cross_plus_transposed_rel_err", std::to_string(worst_plus_t));
  RecordProperty("s4_cross_minus_transposed_rel_err", std::to_string(worst_minus_t));
}

}  // namespace
}  // namespace fedverify
